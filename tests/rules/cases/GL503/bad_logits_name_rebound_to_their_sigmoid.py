"""A multi-label head whose logits name is rebound to the sigmoid (`y_logits =
torch.sigmoid(y_logits)`) before the with-logits loss: reported, but with no fix to offer, since
the logits no longer have a name to pass."""

import torch
import torch.nn.functional as F


def compute_class_loss(y_logits, y, reduction="mean"):
    y_logits = torch.sigmoid(y_logits)
    return F.binary_cross_entropy_with_logits(y_logits, y, reduction=reduction)  # expect: GL503


def train(model, loader, optimizer):
    for x, y in loader:
        z, nll, y_logits = model(x, y)
        loss = nll.mean() + compute_class_loss(y_logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
