import torch


def train_one_epoch(model, loader, optimizer, scaler, device):
    model.train()
    for samples, targets in loader:
        samples, targets = samples.to(device), targets.to(device)
        with torch.autocast("cuda"):
            loss = model(samples, targets)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
    return loss.item()
