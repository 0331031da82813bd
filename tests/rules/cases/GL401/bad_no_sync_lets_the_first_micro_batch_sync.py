import contextlib

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def train_epoch(model, loader, optim, scheduler, accum_grad=4, grad_clip=1.0):
    """An ASR trainer: the window's first micro-batch syncs, the last one steps under no_sync."""
    model.train()
    for batch_idx, batch in enumerate(loader):
        context = contextlib.nullcontext
        if dist.is_initialized():
            context = model.no_sync if batch_idx % accum_grad != 0 else context  # expect: GL401
        with context():
            loss, stats, weight = model(**batch)
            loss = loss / accum_grad
            loss.backward()
        if (batch_idx + 1) % accum_grad == 0 or batch_idx + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
            optim.step()
            scheduler.step()
            optim.zero_grad()


def main(build_model, loader, local_rank):
    dist.init_process_group("nccl")
    model = DDP(build_model().cuda(local_rank), device_ids=[local_rank])
    optim = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optim, lambda step: min(1.0, (step + 1) / 1000))
    train_epoch(model, loader, optim, scheduler)
