"""An embedding fine-tune steps at every window's end `or` when `step + 1` equals the number of
updates per epoch (`len(loader) // accum`): the index reaches that count a fraction of the way
into the epoch, so the test flushes nothing at the end and the tail is cleared next epoch."""
import torch


def train(model, optimizer, scheduler, loader, epochs, accum=8, max_grad_norm=1.0):
    num_update_steps_per_epoch = len(loader) // accum
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        for step, batch in enumerate(loader):
            loss = model(**batch).loss / accum
            loss.backward()
            if (step + 1) % accum == 0 or (step + 1) == num_update_steps_per_epoch:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
