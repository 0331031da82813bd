import math
import torch


def train_one_epoch(model, optimizer, data_loader, device, epoch, accumulation_steps=4, scaler=None):
    model.train()
    optimizer.zero_grad()
    for i, (images, targets) in enumerate(data_loader):
        images = list(image.to(device) for image in images)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        with torch.autocast("cuda", enabled=scaler is not None):
            loss_dict = model(images, targets)
            losses = sum(loss for loss in loss_dict.values()) / accumulation_steps
        loss_value = losses.item()
        if not math.isfinite(loss_value):
            raise RuntimeError(f"loss is {loss_value}")
        losses.backward()
        if (i + 1) % accumulation_steps == 0 or i + 1 == len(data_loader):
            optimizer.step()
            optimizer.zero_grad()
