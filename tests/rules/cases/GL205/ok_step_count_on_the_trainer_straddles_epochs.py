"""The trainer's count runs on across epochs and nothing clears the gradients between them: an
epoch's last micro-batches join the next epoch's first window, which steps on a full count."""
import torch


class Trainer:
    def __init__(self, model, optimizer, loader, accum_steps=4):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.accum_steps = accum_steps
        self.global_step = 0

    def train_epoch(self):
        self.model.train()
        for x, y in self.loader:
            self.global_step += 1
            loss = torch.nn.functional.cross_entropy(self.model(x), y) / self.accum_steps
            loss.backward()
            if self.global_step % self.accum_steps == 0:
                self.optimizer.step()
                self.optimizer.zero_grad()
