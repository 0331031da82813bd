"""The same trainer dividing each micro-batch loss by the stride, and clipping only when it
applies the window's gradients."""

import torch


class Trainer:
    def __init__(self, model, loss, optimizer, stride_apply=1, clip_grad_norm=0.0):
        self.model = model
        self.loss = loss
        self.optimizer = optimizer
        self.stride_apply = stride_apply
        self.clip_grad_norm = clip_grad_norm

    def train_batch(self, data, targets, apply_gradients=True):
        outputs = self.model(data)
        loss, head_losses = self.loss(outputs, targets)
        (loss / self.stride_apply).backward()
        if apply_gradients:
            if self.clip_grad_norm:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()
        return float(loss.item())

    def train(self, scenes, epoch):
        self.model.train()
        self.optimizer.zero_grad()
        for batch_idx, (data, target) in enumerate(scenes):
            apply_gradients = (batch_idx + 1) % self.stride_apply == 0 or batch_idx + 1 == len(scenes)
            self.train_batch(data, target, apply_gradients)
