"""A project's own one-cycle schedule: step() writes the learning rate of the coming update into
the param groups, so it is called before optimizer.step() on purpose (no torch LR scheduler)."""
import math

import torch
from torch import nn


class CycleScheduler:
    def __init__(self, optimizer, lr_max, n_iter, warmup=0.3):
        self.optimizer = optimizer
        self.lr_max = lr_max
        self.n_iter = n_iter
        self.warmup_iter = int(n_iter * warmup)
        self.iteration = 0

    def step(self):
        if self.iteration < self.warmup_iter:
            lr = self.lr_max * (self.iteration + 1) / self.warmup_iter
        else:
            progress = (self.iteration - self.warmup_iter) / max(1, self.n_iter - self.warmup_iter)
            lr = self.lr_max * 0.5 * (1 + math.cos(math.pi * progress))
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.iteration += 1
        return lr


def train(epoch, loader, model, optimizer, scheduler, device):
    criterion = nn.MSELoss()
    for i, (img, _) in enumerate(loader):
        model.zero_grad()
        img = img.to(device)
        out, latent_loss = model(img)
        loss = criterion(out, img) + 0.25 * latent_loss.mean()
        loss.backward()
        if scheduler is not None:
            scheduler.step()
        optimizer.step()


def main(args, model, loader, device):
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = None
    if args.sched == "cycle":
        scheduler = CycleScheduler(optimizer, args.lr, n_iter=len(loader) * args.epoch)
    for epoch in range(args.epoch):
        train(epoch, loader, model, optimizer, scheduler, device)
