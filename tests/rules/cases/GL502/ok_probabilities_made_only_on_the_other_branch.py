"""A flow's class-conditional loss: the multi-label branch turns its logits into probabilities
(and is GL503's business), the other branch gives the raw logits to cross-entropy, which is
right: an assignment on one side of an `if` never reaches the other."""

import torch
import torch.nn.functional as F


def compute_loss_y(nll, y_logits, y_weight, y, multi_class):
    losses = {"nll": torch.mean(nll)}
    if multi_class:
        y_logits = torch.sigmoid(y_logits)
        loss_classes = F.binary_cross_entropy_with_logits(y_logits, y)  # expect: GL503
    else:
        loss_classes = F.cross_entropy(y_logits, torch.argmax(y, dim=1))
    losses["loss_classes"] = loss_classes
    losses["total_loss"] = losses["nll"] + y_weight * loss_classes
    return losses


def train(model, loader, optimizer, y_weight, multi_class):
    for x, y in loader:
        z, nll, y_logits = model(x, y)
        losses = compute_loss_y(nll, y_logits, y_weight, y, multi_class)
        optimizer.zero_grad()
        losses["total_loss"].backward()
        optimizer.step()
