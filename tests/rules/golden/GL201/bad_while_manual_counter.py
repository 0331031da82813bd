import itertools

import torch
import torch.nn as nn

from recsys import DLRM
from data import click_logs_loader

accum = 8
total_updates = 50_000
model = DLRM(num_dense=13, embedding_sizes=[100_000] * 26, embed_dim=64)
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
criterion = nn.BCEWithLogitsLoss()
batches = itertools.cycle(click_logs_loader(batch_size=2048))

micro = 0
updates = 0
while updates < total_updates:
    dense, sparse, clicks = next(batches)
    logits = model(dense, sparse).squeeze(-1)
    loss = criterion(logits, clicks.float())
    (loss / accum).backward()  # expect: GL201
    micro += 1
    if micro % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        updates += 1
        if updates % 500 == 0:
            print(f"update {updates}: loss {loss.item():.4f}")
