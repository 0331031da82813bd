import torch


@torch.no_grad()
def evaluate(model, loader, criterion):
    model.eval()
    total = 0.0
    for x, y in loader:
        loss = criterion(model(x), y)
        total += loss
    return total / len(loader)
