"""YOLO-style detector training: under DDP the loss is multiplied by the number of processes
(undoing DDP's mean over them), but nothing divides it by the accumulation window."""
import torch


def train_one_epoch(model, criterion, dataloader, optimizer, scaler, accumulate, distributed, world_size):
    for iter_i, (images, targets) in enumerate(dataloader):
        with torch.autocast("cuda"):
            outputs = model(images)
            losses = criterion(outputs, targets)["losses"]
        if distributed:
            losses *= world_size
        scaler.scale(losses / accumulate).backward()  # expect: GL201
        if (iter_i + 1) % accumulate == 0 or iter_i + 1 == len(dataloader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
