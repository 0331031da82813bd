"""A byte-level diffusion LM trained with torchrun: a smoke-test switch shrinks the run (one
micro-step, no DDP), but the real run accumulates 8 micro-batches through DDP without no_sync."""
import contextlib
import argparse
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from bitbyte.data import ByteStream
from bitbyte.model import ByteDiffusionLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grad_accum", type=int, default=8)
    ap.add_argument("--steps", type=int, default=100_000)
    ap.add_argument("--ddp", action="store_true")
    ap.add_argument("--smoke_test", action="store_true")
    args = ap.parse_args()
    if args.smoke_test:
        args.ddp = False
        args.grad_accum = 1
        args.steps = 20
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    model = ByteDiffusionLM().cuda(local_rank)
    if args.ddp:
        dist.init_process_group("nccl")
        model = DistributedDataParallel(model, device_ids=[local_rank])
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    stream = ByteStream("data/train.bin", batch_size=16)
    for step in range(args.steps):
        opt.zero_grad(set_to_none=True)
        for micro in range(args.grad_accum):
            x = stream.next_batch().cuda(local_rank)
            sync_context = contextlib.nullcontext() if micro == args.grad_accum - 1 else getattr(model, "no_sync", contextlib.nullcontext)()
            with sync_context:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    raw_loss = model(x)
                loss = raw_loss / args.grad_accum
                scaler.scale(loss).backward()  # expect: GL401
        scaler.unscale_(opt)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
