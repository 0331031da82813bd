"""A resumed run skips the batches it already trained on (`if step < start_step: continue`)
before any backward: every batch after that backpropagates and steps alone."""
import torch


def train_epoch(model, loader, optimizer, scheduler, start_step):
    for step, (source, target) in enumerate(loader):
        if step < start_step:
            continue
        loss = model(source, labels=target).loss
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
