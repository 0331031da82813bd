"""A GPT-2 reproduction's script that fixes the window at one micro-batch: the sync flag, set
between the forward and the backward, is `micro_step == 0`, always true, so every backward
all-reduces as it should whenever the flag is set."""
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from data import DataLoaderLite, build_model

grad_accum_steps = 1
max_steps = 5000
ddp = int(os.environ.get("RANK", -1)) != -1
ddp_local_rank = int(os.environ.get("LOCAL_RANK", 0))
device = f"cuda:{ddp_local_rank}"
train_loader = DataLoaderLite(B=16, T=1024)
model = build_model().to(device)
if ddp:
    dist.init_process_group(backend="nccl")
    model = DDP(model, device_ids=[ddp_local_rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)

for step in range(max_steps):
    model.train()
    optimizer.zero_grad()
    loss_accum = 0.0
    for micro_step in range(grad_accum_steps):
        x, y = train_loader.next_batch()
        x, y = x.to(device), y.to(device)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            logits, loss = model(x, y)
        loss = loss / grad_accum_steps
        loss_accum += loss.detach()
        if ddp:
            model.require_backward_grad_sync = micro_step == grad_accum_steps - 1
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
