"""A trainer whose `train_batch` steps only when its caller says so; the caller computes the
flag from a stride before the call. The loss reaches backward undivided."""

import torch


class Trainer:
    def __init__(self, model, loss, optimizer, lr_scheduler=None, stride_apply=1, clip_grad_norm=0.0):
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.stride_apply = stride_apply
        self.clip_grad_norm = clip_grad_norm

    def train_batch(self, data, targets, apply_gradients=True):
        outputs = self.model(data)
        loss, head_losses = self.loss(outputs, targets)
        loss.backward()  # expect: GL201
        if self.clip_grad_norm:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad_norm)  # expect: GL203
        if apply_gradients:
            self.optimizer.step()
            self.optimizer.zero_grad()
        return float(loss.item()), [float(h.item()) for h in head_losses]

    def train(self, scenes, epoch):
        self.model.train()
        self.optimizer.zero_grad()
        for batch_idx, (data, target) in enumerate(scenes):
            apply_gradients = (batch_idx + 1) % self.stride_apply == 0 or batch_idx + 1 == len(scenes)
            loss, head_losses = self.train_batch(data, target, apply_gradients)
            if self.lr_scheduler is not None:
                self.lr_scheduler.step()
