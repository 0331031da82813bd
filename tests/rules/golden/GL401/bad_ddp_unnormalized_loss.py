import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from model import BiLSTMTagger
from data import distributed_pos_loader

dist.init_process_group("gloo")
rank = int(os.environ["RANK"])
accumulation_steps = 4
model = DDP(BiLSTMTagger(vocab_size=20000, tagset_size=17, hidden=256))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
criterion = nn.CrossEntropyLoss(ignore_index=0)
loader = distributed_pos_loader("ud_en_ewt", batch_size=32)

for epoch in range(30):
    for i, (tokens, tags) in enumerate(loader):
        sync_context = contextlib.nullcontext() if (i + 1) % accumulation_steps == 0 or i + 1 == len(loader) else model.no_sync()
        with sync_context:
            scores = model(tokens)
            loss = criterion(scores.view(-1, scores.size(-1)), tags.view(-1))
            (loss / accumulation_steps).backward()  # expect: GL201, GL401
        if (i + 1) % accumulation_steps == 0 or i + 1 == len(loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
    if rank == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
