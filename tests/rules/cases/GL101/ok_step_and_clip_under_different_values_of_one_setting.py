"""A backward helper that steps for one environment and clips for another: one setting cannot
hold two values, so the clip never follows that step; the plain environment steps after it."""
import torch


class Trainer:
    def __init__(self, model, optimizer, env_type, clip_grad=1.0):
        self.model, self.optimizer = model, optimizer
        self.env_type, self.clip_grad = env_type, clip_grad

    def backward_step(self, loss):
        loss.backward()
        if self.env_type == "pytorchDDP":
            self.optimizer.step()
        if self.env_type == "pytorch":
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_grad)

    def train(self, loader):
        for batch in loader:
            self.optimizer.zero_grad()
            loss = self.model(**batch).loss
            self.backward_step(loss)
            if self.env_type == "pytorch":
                self.optimizer.step()
