import torch


def train_step(model, batch, optimizer, scheduler, update, accum_steps):
    loss = model(**batch).loss / accum_steps
    loss.backward()
    if update:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
    return loss.detach()


def train(model, loader, optimizer, scheduler, accum_steps):
    model.train()
    for i, batch in enumerate(loader):
        last = i + 1 == len(loader)
        train_step(model, batch, optimizer, scheduler, (i + 1) % accum_steps == 0 or last, accum_steps)
