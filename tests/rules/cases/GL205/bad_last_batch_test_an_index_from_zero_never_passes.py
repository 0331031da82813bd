"""A translation benchmark's loop meant to flush the epoch's partial window on its last batch,
but `batch_idx == len(train_loader)` never holds for an index `enumerate` counts from 0: the
last partial window is never stepped, and the next epoch's first clear drops it."""
import torch


def train_loop(model, criterion, optimizer, train_loader, train_epochs, update_freq):
    for epoch in range(train_epochs):
        model.train()
        for batch_idx, sample in enumerate(train_loader):
            is_last = batch_idx == len(train_loader)
            update = (batch_idx % update_freq) == update_freq - 1
            init = (batch_idx % update_freq) == 0
            if init:
                optimizer.zero_grad()
            output = model(**sample["net_input"])
            loss = criterion(output, sample["target"]) / update_freq
            loss.backward()
            if update or is_last:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
