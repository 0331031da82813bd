"""A late-interaction retriever's trainer (ColBERT's shape): each batch comes split into
`args.accumsteps` sub-batches, whose losses are divided by that count and backpropagated before
one step. Under DDP the trainer asserts the count is one, so a DDP window is always a single
micro-batch and every backward's all-reduce is the one the step needs."""

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
        assert args.bsize % args.nranks == 0, (args.bsize, args.nranks)
        assert args.accumsteps == 1
        args.bsize = args.bsize // args.nranks

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
            amp.backward(loss)
        amp.step(model, optimizer)
