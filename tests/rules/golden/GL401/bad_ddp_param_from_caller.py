import contextlib
import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn

from models import build_detector
from datasets import build_coco_loader


def train_one_epoch(model, criterion, loader, optimizer, device, accum_steps, max_norm=0.1):
    model.train()
    for i, (samples, targets) in enumerate(loader):
        samples = samples.to(device)
        targets = [{k: v.to(device) for k, v in t.items()} for t in targets]
        sync_context = contextlib.nullcontext() if (i + 1) % accum_steps == 0 or i + 1 == len(loader) else getattr(model, "no_sync", contextlib.nullcontext)()
        with sync_context:
            outputs = model(samples)
            loss_dict = criterion(outputs, targets)
            losses = sum(loss_dict[k] * criterion.weight_dict[k] for k in loss_dict) / accum_steps
            losses.backward()  # expect: GL401
        if (i + 1) % accum_steps == 0 or i + 1 == len(loader):  # expect: GL205
            nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad()


def main(args):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", local_rank)
    detector, criterion = build_detector(args)
    detector.to(device)
    detector_ddp = nn.parallel.DistributedDataParallel(detector, device_ids=[local_rank])
    optimizer = torch.optim.AdamW(detector.parameters(), lr=args.lr, weight_decay=1e-4)
    loader = build_coco_loader(args)
    for epoch in range(args.epochs):
        train_one_epoch(detector_ddp, criterion, loader, optimizer, device, args.accum_steps)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--accum-steps", type=int, default=4)
    main(parser.parse_args())
