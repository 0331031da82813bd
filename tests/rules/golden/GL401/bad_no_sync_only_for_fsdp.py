import contextlib
from contextlib import nullcontext

import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.nn.parallel import DistributedDataParallel as DDP


def train_one_epoch(model, data, optimizer, scaler, args):
    """Only FSDP gets `no_sync`: the DDP model of a run without --fsdp all-reduces every slice."""
    model.train()
    for inputs, targets in data:
        optimizer.zero_grad()
        for ii in range(args.accum_freq):
            maybe_no_sync = nullcontext
            if isinstance(model, FSDP) and ii != args.accum_freq - 1:
                maybe_no_sync = model.no_sync
            with maybe_no_sync():
                start, end = ii * args.per_gpu_batch, (ii + 1) * args.per_gpu_batch
                sync_context = contextlib.nullcontext() if ii == args.accum_freq - 1 else getattr(model, "no_sync", contextlib.nullcontext)()
                with sync_context:
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        out = model(inputs[start:end])
                        loss = torch.nn.functional.cross_entropy(out, targets[start:end]) / args.accum_freq
                    scaler.scale(loss).backward()  # expect: GL401
        scaler.step(optimizer)
        scaler.update()


def main(args, net, data):
    if args.fsdp:
        model = FSDP(net)
    else:
        model = DDP(net, device_ids=[args.local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.epochs):
        train_one_epoch(model, data, optimizer, scaler, args)
