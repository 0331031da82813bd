import torch
import torch.nn.functional as F

EPS = 1e-8


def entropy(logits):
    probs = F.softmax(logits, dim=-1)
    return -(probs * torch.log(probs + EPS)).sum(-1)
