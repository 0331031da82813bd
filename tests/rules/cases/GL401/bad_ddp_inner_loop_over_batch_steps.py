"""A retrieval trainer: the reader yields each batch as a list of micro-batch steps; every step's
loss goes through a mixed-precision helper's backward, and the helper steps after the list."""
import torch
import torch.nn as nn


class MixedPrecisionManager:
    def __init__(self, activated):
        self.activated = activated
        if activated:
            self.scaler = torch.amp.GradScaler("cuda")

    def backward(self, loss):
        if self.activated:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()

    def step(self, model, optimizer, scheduler=None):
        if self.activated:
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            optimizer.step()
        if scheduler is not None:
            scheduler.step()
        optimizer.zero_grad()


def train(config, encoder, reader, device):
    encoder = encoder.to(device)
    encoder = torch.nn.parallel.DistributedDataParallel(encoder, device_ids=[config.rank])
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=config.lr)
    amp = MixedPrecisionManager(config.amp)
    labels = torch.zeros(config.bsize, dtype=torch.long, device=device)
    for batch_idx, batch_steps in zip(range(config.maxsteps), reader):
        for queries, passages in batch_steps:
            with torch.autocast("cuda", enabled=config.amp):
                scores = encoder(queries, passages).view(-1, config.nway)
                loss = nn.CrossEntropyLoss()(scores, labels[: scores.size(0)])
                loss = loss / config.accumsteps
            amp.backward(loss)  # expect: GL401
        amp.step(encoder, optimizer)
