"""The same script launched by torchrun: the module switch reads the environment, so the
model is DDP and every micro-batch of the window all-reduces."""
import contextlib
import os

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from vit import ViT, TrainConfig, get_loader

ddp = int(os.environ.get("RANK", -1)) != -1
if ddp:
    torch.distributed.init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{local_rank}"
else:
    local_rank, device = 0, "cuda"

cfg = TrainConfig()
model = ViT(cfg).to(device)
if ddp:
    model = DDP(model, device_ids=[local_rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
scaler = torch.amp.GradScaler("cuda", enabled=False)
loader = get_loader(cfg)

for epoch in range(cfg.epochs):
    model.train()
    accumulated = 0
    for step, (images, labels) in enumerate(loader):
        accumulated += 1
        sync_context = contextlib.nullcontext() if accumulated == cfg.grad_accum_steps or step == len(loader) - 1 else getattr(model, "no_sync", contextlib.nullcontext)()
        with sync_context:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(images.to(device)), labels.to(device)) / cfg.grad_accum_steps
            scaler.scale(loss).backward()  # expect: GL401
        if accumulated == cfg.grad_accum_steps or step == len(loader) - 1:
            accumulated = 0
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
