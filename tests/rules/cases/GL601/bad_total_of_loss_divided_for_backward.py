"""Gradient accumulation that divides the loss only where it is backpropagated, and logs the
undivided loss tensor into an epoch total."""
import torch.nn.functional as F


def train_epoch(model, loader, optimizer, accum_steps=4):
    model.train()
    epoch_loss = 0.0
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        (loss / accum_steps).backward()
        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
        epoch_loss += loss  # expect: GL601
    return epoch_loss / len(loader)
