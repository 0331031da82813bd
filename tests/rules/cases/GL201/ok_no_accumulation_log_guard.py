import torch
import torch.nn as nn

from recsys import DLRM
from data import click_logs_loader

log_every = 100
model = DLRM(num_dense=13, embedding_sizes=[100_000] * 26, embed_dim=64)
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.01)
criterion = nn.BCEWithLogitsLoss()
loader = click_logs_loader(batch_size=2048)

running = 0.0
for step, (dense, sparse, clicks) in enumerate(loader):
    logits = model(dense, sparse).squeeze(-1)
    loss = criterion(logits, clicks.float())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running += loss.item()
    if step % log_every == 0:
        print(f"step {step}: loss {running / log_every:.4f}")
        running = 0.0
