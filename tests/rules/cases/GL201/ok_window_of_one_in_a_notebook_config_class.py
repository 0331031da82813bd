"""A Kaggle notebook's settings live in a namespace class: the window is 1, so nothing
accumulates (the division, the clip and the window test are all written for larger ones)."""
import torch


class CFG:
    apex = True
    max_grad_norm = 1000
    gradient_accumulation_steps = 1
    batch_scheduler = True


def train_fn(train_loader, model, criterion, optimizer, epoch, scheduler, device):
    model.train()
    scaler = torch.amp.GradScaler("cuda", enabled=CFG.apex)
    for step, (inputs, labels) in enumerate(train_loader):
        inputs, labels = inputs.to(device), labels.to(device)
        with torch.autocast("cuda", enabled=CFG.apex):
            loss = criterion(model(inputs), labels)
        adversarial = criterion(model(inputs + 0.01 * torch.randn_like(inputs)), labels)
        scaler.scale(loss + adversarial).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), CFG.max_grad_norm)
        if (step + 1) % CFG.gradient_accumulation_steps == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
            if CFG.batch_scheduler:
                scheduler.step()
