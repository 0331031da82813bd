"""Multiplied by the number of processes under DDP, then divided by the accumulation window."""
import torch


def train_one_epoch(model, criterion, dataloader, optimizer, scaler, accumulate, distributed, world_size):
    for iter_i, (images, targets) in enumerate(dataloader):
        with torch.autocast("cuda"):
            outputs = model(images)
            losses = criterion(outputs, targets)["losses"]
        if distributed:
            losses = losses * world_size
        scaler.scale(losses / accumulate).backward()
        if (iter_i + 1) % accumulate == 0 or iter_i + 1 == len(dataloader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
