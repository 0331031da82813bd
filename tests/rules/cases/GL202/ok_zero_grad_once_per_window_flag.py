"""A flag opens each window: zero_grad runs on the window's first micro-batch only (the flag is
lowered right after it and raised again by the update)."""
import torch
import torch.nn.functional as F


def train_epoch(model, loader, optimizer, update_frequency=4):
    start_update = True
    for idx, (images, labels) in enumerate(loader):
        if start_update:
            optimizer.zero_grad()
            start_update = False
        loss = F.cross_entropy(model(images), labels) / update_frequency
        loss.backward()
        if (idx + 1) % update_frequency == 0 or idx + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            start_update = True
