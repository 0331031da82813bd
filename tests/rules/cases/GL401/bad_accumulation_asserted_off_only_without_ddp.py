"""The same retriever trainer, but the assert holding the sub-batch count at one sits on the
single-process path (`if not args.distributed:`, a leftover of debugging): under DDP the batches
are still split into `args.accumsteps` sub-batches, and each one's backward all-reduces."""

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


class MixedPrecisionManager:
    def __init__(self, activated):
        self.activated = activated
        if activated:
            self.scaler = torch.amp.GradScaler("cuda")

    def context(self):
        return torch.autocast("cuda") if self.activated else torch.autocast("cuda", enabled=False)

    def backward(self, loss):
        if self.activated:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()

    def step(self, model, optimizer):
        if self.activated:
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            self.scaler.step(optimizer)
            self.scaler.update()
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            optimizer.step()
        optimizer.zero_grad()


def train(args, reader, build_model):
    if args.distributed:
        args.bsize = args.bsize // args.nranks
    else:
        assert args.accumsteps == 1

    model = build_model(args).to("cuda")
    model.train()
    if args.distributed:
        model = DistributedDataParallel(model, device_ids=[args.rank], find_unused_parameters=True)

    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, eps=1e-8)
    optimizer.zero_grad()
    amp = MixedPrecisionManager(args.amp)
    criterion = nn.CrossEntropyLoss()
    labels = torch.zeros(args.bsize, dtype=torch.long, device="cuda")

    for batch_idx, sub_batches in zip(range(args.maxsteps), reader):
        for queries, passages in sub_batches:
            with amp.context():
                scores = model(queries, passages).view(2, -1).permute(1, 0)
                loss = criterion(scores, labels[: scores.size(0)])
                loss = loss / args.accumsteps
            amp.backward(loss)  # expect: GL401
        amp.step(model, optimizer)
