"""The loop asks a method of its trainer whether this micro-batch ends a window; the method
names the index its own way. Nothing flushes the epoch's last partial window."""
import torch


class Trainer:
    def __init__(self, model, optimizer, accum_steps=4):
        self.model = model
        self.optimizer = optimizer
        self.accum_steps = accum_steps

    def should_step(self, micro_batch_index):
        return (micro_batch_index + 1) % self.accum_steps == 0

    def train_epoch(self, loader):
        self.model.train()
        for batch_idx, (x, y) in enumerate(loader):
            loss = torch.nn.functional.cross_entropy(self.model(x), y) / self.accum_steps
            loss.backward()
            if self.should_step(batch_idx) or batch_idx + 1 == len(loader):  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
