"""A multitask runner whose loss-weight schedule is stepped (through `get_weights`) before the
optimizer's step every batch: it moves the weights of the loss terms, not a learning rate, so
its order against the optimizer's step is free. The learning-rate scheduler steps after the
optimizer, as it should."""
import torch


class LossWeightScheduler:
    """Blends each loss term's weight from its initial to its final value."""

    def __init__(self, initial_weights, final_weights, warmup_steps=1000, total_steps=10000):
        self.initial_weights = initial_weights
        self.final_weights = final_weights
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self.current_step = 0

    def step(self):
        if self.current_step < self.warmup_steps:
            weights = dict(self.initial_weights)
        else:
            progress = min(1.0, (self.current_step - self.warmup_steps) / (self.total_steps - self.warmup_steps))
            weights = {k: (1 - progress) * self.initial_weights[k] + progress * self.final_weights[k] for k in self.initial_weights}
        self.current_step += 1
        return weights

    def get_weights(self, step):
        self.current_step = step
        return self.step()


class MultitaskRunner:
    def __init__(self, model, optimizer, lr_scheduler, config):
        self.model = model
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.loss_weight_scheduler = LossWeightScheduler(config.initial_weights, config.final_weights)

    def train_epoch(self, loader, epoch):
        for step, (video, report, target) in enumerate(loader):
            weights = self.loss_weight_scheduler.get_weights(epoch * len(loader) + step)
            outputs = self.model(video.cuda(), report)
            loss = sum(weights[name] * term for name, term in outputs["losses"].items())
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.lr_scheduler.step()
