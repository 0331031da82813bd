import torch
import torch.nn.functional as F


def train_epoch(model, train_loader, optimizer, weights):
    """The dict gathers this batch's loss terms, its total is backpropagated, and a fresh dict is
    made every batch; the epoch total takes a number."""
    epoch_loss = 0.0
    for x, y in train_loader:
        losses = {"total": 0.0}
        out = model(x.cuda())
        for name, weight in weights.items():
            term = weight * F.l1_loss(out[name], y[name].cuda())
            losses[name] = term
            losses["total"] += term
        optimizer.zero_grad()
        losses["total"].backward()
        optimizer.step()
        epoch_loss += losses["total"].item()
    return epoch_loss / len(train_loader)


def train_with_totals(model, train_loader, optimizer):
    """Epoch totals in a dict, each added as a number."""
    totals = {"loss": 0.0}
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x.cuda()), y.cuda())
        loss.backward()
        optimizer.step()
        totals["loss"] += loss.item()
    return totals
