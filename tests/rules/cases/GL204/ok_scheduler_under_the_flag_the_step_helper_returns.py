"""The step helper steps on the window's last micro-batch and says so (`did_step`); the epoch
steps the scheduler only when it did."""
import torch


def train_step(model, batch, optimizer, criterion, accum, batch_index):
    loss = criterion(model(batch["x"]), batch["y"])
    (loss / accum).backward()
    did_step = False
    if (batch_index + 1) % accum == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        did_step = True
    return loss.detach(), did_step


def train_one_epoch(model, loader, optimizer, criterion, lr_scheduler, accum=4):
    optimizer.zero_grad(set_to_none=True)
    for i, batch in enumerate(loader):
        loss, did_step = train_step(model, batch, optimizer, criterion, accum, i)
        if did_step:
            lr_scheduler.step()
    if len(loader) % accum:
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
