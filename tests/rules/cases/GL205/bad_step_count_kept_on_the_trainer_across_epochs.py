"""BYOL-style trainer: the accumulation count lives on the trainer and runs on across epochs,
while each epoch starts by clearing the gradients, so the micro-batches an epoch leaves after
its last step are thrown away (and the next epoch's first window is short)."""
import torch


class Trainer:
    def __init__(self, model, optimizer, loader, device="cuda", accum_steps=1):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.device = device
        self.accum_steps = accum_steps
        self._step = 0

    def train_one_epoch(self):
        self.model.train()
        self.optimizer.zero_grad()
        losses = []
        for (view1, view2), _ in self.loader:
            self._step += 1
            loss = self.model(view1.to(self.device), view2.to(self.device)) / self.accum_steps
            loss.backward()
            if self._step % self.accum_steps == 0:  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.model.update_moving_average()
            losses.append(loss.item())
        return sum(losses) / len(losses)

    def fit(self, epochs):
        for _ in range(epochs):
            self.train_one_epoch()
