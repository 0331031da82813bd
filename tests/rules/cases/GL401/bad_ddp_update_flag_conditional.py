import argparse
import itertools
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from data import build_loaders
from models import GPT2LMModel


def optimizer_step(loss, optimizer, model, scheduler, args, is_update=True):
    if args.fp16:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss.backward()
    else:
        loss.backward()
    if is_update:
        if args.clip > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        optimizer.zero_grad()
        if scheduler is not None:
            scheduler.step()


def train_validate(model, optimizer, scheduler, train_loader, args, train_step=0):
    model.train()
    for idx, batch in enumerate(train_loader):
        inputs = batch["input"].to(args.device)
        targets = batch["target"].to(args.device)
        _, lm_loss = model(inputs, lm_labels=targets)
        lm_loss = lm_loss.mean()
        train_step += 1
        is_update = True if train_step % args.grad_acc == 0 else False
        optimizer_step(lm_loss / args.grad_acc, optimizer, model, scheduler, args, is_update=is_update)  # expect: GL401
        if train_step >= args.max_step:
            break
    return train_step


def main(args):
    dist.init_process_group(backend="nccl")
    args.device = torch.device("cuda", int(os.environ["LOCAL_RANK"]))
    train_loader = build_loaders(args)
    lm_net = GPT2LMModel(args).to(args.device)
    optimizer = torch.optim.AdamW(lm_net.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=1.0, total_iters=args.max_step)
    lm_net = DistributedDataParallel(lm_net, device_ids=[args.device.index])
    train_step = 0
    for epoch in itertools.count(start=1):
        train_step = train_validate(lm_net, optimizer, scheduler, train_loader, args, train_step=train_step)
        if train_step >= args.max_step:
            break


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--grad_acc", type=int, default=4)
    parser.add_argument("--max_step", type=int, default=10000)
    main(parser.parse_args())
