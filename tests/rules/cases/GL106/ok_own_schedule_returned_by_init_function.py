"""The optimizer and a project schedule (step() returns and sets the coming update's rate) come
from an init function's returned tuple; a closure steps the schedule before the optimizer."""
import math

import torch


class WarmupCosineSchedule(object):
    def __init__(self, optimizer, warmup_steps, ref_lr, total_steps):
        self.optimizer = optimizer
        self.warmup_steps = warmup_steps
        self.ref_lr = ref_lr
        self.total_steps = total_steps
        self._step = 0

    def step(self):
        self._step += 1
        if self._step < self.warmup_steps:
            lr = self.ref_lr * self._step / self.warmup_steps
        else:
            progress = (self._step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
            lr = self.ref_lr * 0.5 * (1.0 + math.cos(math.pi * progress))
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        return lr


def init_opt(encoder, ref_lr, warmup, iterations_per_epoch, num_epochs):
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=ref_lr)
    scheduler = WarmupCosineSchedule(optimizer, warmup * iterations_per_epoch, ref_lr, num_epochs * iterations_per_epoch)
    return encoder, optimizer, scheduler


def main(encoder, loader, loss_fn, num_epochs=100):
    encoder, optimizer, scheduler = init_opt(encoder, 1e-3, 10, len(loader), num_epochs)
    for epoch in range(num_epochs):
        for views in loader:

            def train_step():
                new_lr = scheduler.step()
                optimizer.zero_grad()
                loss = loss_fn(encoder(views))
                loss.backward()
                optimizer.step()
                return float(loss), new_lr

            loss, lr = train_step()
