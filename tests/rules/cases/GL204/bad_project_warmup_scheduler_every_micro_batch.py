import math

import torch

from asr.data import build_dataloader
from asr.models import Speech2Text


class WarmupCosineLR:
    """Sets the learning rate of every parameter group; the optimizer is stepped by the loop."""

    def __init__(self, optimizer, base_lr, warmup_steps, total_steps):
        self.optimizer = optimizer
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self._step = 0

    def step(self):
        self._step += 1
        if self._step < self.warmup_steps:
            lr = self.base_lr * self._step / self.warmup_steps
        else:
            progress = (self._step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
            lr = 0.5 * self.base_lr * (1 + math.cos(math.pi * progress))
        for group in self.optimizer.param_groups:
            group["lr"] = lr


def main(args):
    model = Speech2Text(args).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = WarmupCosineLR(optimizer, args.lr, args.warmup_steps, args.total_steps)
    train_set = build_dataloader(args.train_set, args.batch_size)
    for epoch in range(args.n_epochs):
        for i, batch in enumerate(train_set):
            loss, observation = model(batch)
            (loss / args.accum_grad_n_steps).backward()
            if (i + 1) % args.accum_grad_n_steps == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()  # expect: GL204
