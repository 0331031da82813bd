import torch
import torch.nn as nn
import torch.nn.functional as F


class HeadLoss(nn.Module):
    """Boxes are decoded from probabilities, but the objectness loss takes the raw logits."""

    def forward(self, output, target):
        obj_logits = output[..., 4].clone()
        output[..., :2] = torch.sigmoid(output[..., :2])
        output[..., 2:4] = torch.exp(output[..., 2:4])
        box_loss = F.mse_loss(output[..., :4], target[..., :4])
        obj_loss = F.binary_cross_entropy_with_logits(input=obj_logits, target=target[..., 4])
        return box_loss + obj_loss


def train(model, loader, optimizer):
    criterion = HeadLoss()
    for images, targets in loader:
        loss = criterion(model(images), targets)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
