import torch
import torch.nn.functional as F


def focal_loss(logits, targets, gamma=2.0):
    ce = F.cross_entropy(logits, targets, reduction="none")
    pt = torch.softmax(logits, dim=1).gather(1, targets[:, None]).squeeze(1)
    return ((1 - pt) ** gamma * ce).mean()
