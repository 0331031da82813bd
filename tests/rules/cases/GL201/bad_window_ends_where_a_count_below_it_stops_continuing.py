"""A summarizer's loop that accumulates `update_freq` batches by skipping the rest of the
iteration while fewer are in, without dividing the loss by that count."""
import torch


def train_epoch(model, loader, optimizer, update_freq):
    pending = 0
    optimizer.zero_grad()
    for source, target in loader:
        loss = model(source, labels=target).loss
        loss.backward()  # expect: GL201
        pending += 1
        if pending < update_freq:
            continue
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
        pending = 0
