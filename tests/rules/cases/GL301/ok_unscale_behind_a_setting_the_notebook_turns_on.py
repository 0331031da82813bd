"""The notebook's settings turn the unscale on: the clip sees true gradients."""
import torch


class CFG:
    apex = True
    unscale = True
    max_grad_norm = 1000


def train_fn(train_loader, model, criterion, optimizer, scheduler, device):
    model.train()
    scaler = torch.amp.GradScaler("cuda", enabled=CFG.apex)
    for inputs, labels in train_loader:
        inputs, labels = inputs.to(device), labels.to(device)
        with torch.autocast("cuda", enabled=CFG.apex):
            loss = criterion(model(inputs), labels)
        scaler.scale(loss).backward()
        if CFG.unscale:
            scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        scheduler.step()
