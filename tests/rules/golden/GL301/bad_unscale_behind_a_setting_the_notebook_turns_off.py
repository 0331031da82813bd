"""The notebook's settings turn the unscale off (`CFG.unscale = False`), so the clip runs on
gradients still multiplied by the loss scale."""
import torch


class CFG:
    apex = True
    unscale = False
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
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        scheduler.step()
