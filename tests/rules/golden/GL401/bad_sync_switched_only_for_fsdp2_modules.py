import contextlib

import torch
from torch.distributed.fsdp import FSDPModule, fully_shard
from torch.nn.parallel import DistributedDataParallel as DDP


def prepare(model, use_ddp, local_rank):
    if use_ddp:
        return DDP(model, device_ids=[local_rank])
    fully_shard(model)
    return model


def unwrap_model(model):
    return model.module if isinstance(model, DDP) else model


def train(model, loader, optimizer, args):
    """FSDP2 modules have their gradient sync switched off for the window's first micro-batches;
    on the DDP path nothing is switched and every backward all-reduces."""
    model = prepare(model, args.use_ddp, args.local_rank)
    batches = iter(loader)
    for update in range(args.n_updates):
        optimizer.zero_grad(set_to_none=True)
        if isinstance(model, FSDPModule):
            model.set_requires_gradient_sync(False)
        for micro_batch in range(args.gradient_accumulation_steps):
            x = next(batches).cuda()
            sync_context = contextlib.nullcontext() if micro_batch == args.gradient_accumulation_steps - 1 else getattr(model, "no_sync", contextlib.nullcontext)()
            with sync_context:
                loss = model(x) / args.gradient_accumulation_steps
                if isinstance(model, FSDPModule) and micro_batch + 1 == args.gradient_accumulation_steps:
                    model.set_requires_gradient_sync(True)
                loss.backward()  # expect: GL401
        torch.nn.utils.clip_grad_norm_(unwrap_model(model).parameters(), max_norm=1.0)
        optimizer.step()
