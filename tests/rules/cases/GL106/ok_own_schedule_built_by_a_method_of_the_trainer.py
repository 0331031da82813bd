"""A trainer builds its schedule in a method that returns one of the project's own schedule
classes (a warm-up cosine one, or a constant one when scheduling is off); their `step()` sets
the rate of the update about to happen, so stepping it before the optimizer is by design."""
import math

import torch


class WarmupCosineLR:
    def __init__(self, optimizer, warmup_iters, max_lr, min_lr, period):
        self.optimizer = optimizer
        self.warmup_iters = warmup_iters
        self.max_lr, self.min_lr, self.period = max_lr, min_lr, period
        self.steps = -1

    def step(self):
        self.steps += 1
        if self.steps < self.warmup_iters:
            lr = self.max_lr * (self.steps + 1) / self.warmup_iters
        else:
            progress = (self.steps - self.warmup_iters) % self.period / self.period
            lr = self.min_lr + 0.5 * (self.max_lr - self.min_lr) * (1 + math.cos(math.pi * progress))
        for group in self.optimizer.param_groups:
            group["lr"] = lr


class ConstantLR:
    def __init__(self, lr):
        self.lr = lr

    def step(self):
        pass


class Trainer:
    def __init__(self, model, loader, config):
        self.model = model
        self.loader = loader
        self.config = config
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
        self.lr_scheduler = self._init_lr_scheduler(config.lr, self.optimizer)

    def _init_lr_scheduler(self, lr, optimizer):
        if self.config.enable_lr_scheduler:
            return WarmupCosineLR(optimizer, self.config.warmup_iters, self.config.max_lr, self.config.min_lr, self.config.period)
        return ConstantLR(lr)

    def _apply_step(self):
        self.lr_scheduler.step()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def train(self):
        for epoch in range(self.config.epochs):
            for inputs, labels in self.loader:
                loss = self.model(inputs.cuda(), labels=labels.cuda()).loss
                loss.backward()
                self._apply_step()
