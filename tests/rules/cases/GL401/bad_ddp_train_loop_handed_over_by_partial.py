"""The script binds the DDP model, loader and optimizer into `functools.partial(train_loop, ...)`
and calls the partial once per epoch: the accumulation loop's `model` is the DDP wrapper."""
from functools import partial

import torch
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP


def train_loop(args, loader, model, optimizer, scaler, scheduler):
    model.train()
    optimizer.zero_grad()
    accumulate_count = 0
    for i, images in enumerate(loader):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            rec_loss, commit_loss = model(images.cuda())
            loss = (rec_loss.mean() + commit_loss.mean()) / args.n_accumulate
        scaler.scale(loss).backward()  # expect: GL401
        accumulate_count += 1
        if accumulate_count == args.n_accumulate:  # expect: GL205
            accumulate_count = 0
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad()


def train_model(rank, world_size, args, build_model, build_loader):
    torch.distributed.init_process_group("nccl", rank=rank, world_size=world_size)
    ddp_model = DDP(build_model(args).to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(ddp_model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)
    train_fn = partial(train_loop, args=args, loader=build_loader(args, rank), model=ddp_model,
                       optimizer=optimizer, scaler=torch.amp.GradScaler("cuda"), scheduler=scheduler)
    for epoch in range(args.epochs):
        train_fn()


def main(args, build_model, build_loader):
    world_size = torch.cuda.device_count()
    mp.spawn(train_model, args=(world_size, args, build_model, build_loader), nprocs=world_size)
