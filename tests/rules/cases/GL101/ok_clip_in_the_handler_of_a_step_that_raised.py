"""A noisy-label trainer whose AMP step sometimes raises on NaNs from a batch norm: the handler
unscales, clips and steps again, so the clip precedes the step that actually runs."""
import torch


def train_epoch(net, loader, optimizer, scaler, criterion, iters_to_accumulate, logger):
    net.train()
    for it, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = criterion(net(x), y) / iters_to_accumulate
        scaler.scale(loss).backward()
        if (it + 1) % iters_to_accumulate == 0 or it + 1 == len(loader):
            try:
                scaler.step(optimizer)
            except RuntimeError:
                logger.warning("non-finite values in the backward: clipping before stepping again")
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(net.parameters(), max_norm=2.0)
                scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
