import contextlib
import argparse

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel


def train(args, model, loader, optimizer, criterion):
    """Single-GPU runs keep the bare model: the fix must not call a `no_sync()` it lacks."""
    if args.distributed:
        dist.init_process_group("nccl")
        model = DistributedDataParallel(model.cuda(), device_ids=[args.local_rank])
    model.train()
    optimizer.zero_grad()
    for step, (images, labels) in enumerate(loader):
        sync_context = contextlib.nullcontext() if (step + 1) % args.accum_steps == 0 or step + 1 == len(loader) else getattr(model, "no_sync", contextlib.nullcontext)()
        with sync_context:
            logits = model(images)
            loss = criterion(logits, labels) / args.accum_steps
            loss.backward()  # expect: GL401
        if (step + 1) % args.accum_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--distributed", action="store_true")
    parser.add_argument("--local_rank", type=int, default=0)
    parser.add_argument("--accum_steps", type=int, default=4)
    return parser.parse_args()
