"""A project schedule built on torch's LRScheduler (it only defines get_lr): its step() follows
torch's convention, so stepping it before optimizer.step() skips the first learning rate."""
import math

import torch
from torch import nn
from torch.optim.lr_scheduler import LRScheduler


class WarmupCosine(LRScheduler):
    def __init__(self, optimizer, warmup_iter, n_iter, last_epoch=-1):
        self.warmup_iter = warmup_iter
        self.n_iter = n_iter
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        step = self.last_epoch
        if step < self.warmup_iter:
            scale = (step + 1) / self.warmup_iter
        else:
            scale = 0.5 * (1 + math.cos(math.pi * (step - self.warmup_iter) / max(1, self.n_iter - self.warmup_iter)))
        return [base_lr * scale for base_lr in self.base_lrs]


def train(epoch, loader, model, optimizer, scheduler, device):
    criterion = nn.MSELoss()
    for i, (img, _) in enumerate(loader):
        model.zero_grad()
        img = img.to(device)
        out, latent_loss = model(img)
        loss = criterion(out, img) + 0.25 * latent_loss.mean()
        loss.backward()
        scheduler.step()  # expect: GL106
        optimizer.step()


def main(args, model, loader, device):
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    scheduler = WarmupCosine(optimizer, warmup_iter=500, n_iter=len(loader) * args.epoch)
    for epoch in range(args.epoch):
        train(epoch, loader, model, optimizer, scheduler, device)
