"""The trainer's own `clip_gradients` clips what the scaler left scaled."""
import torch
from torch import nn


class Trainer:
    def __init__(self, model, optimizer, max_norm):
        self.model = model
        self.optimizer = optimizer
        self.max_norm = max_norm
        self.scaler = torch.amp.GradScaler("cuda")

    def clip_gradients(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)  # expect: GL301

    def train_epoch(self, loader):
        self.model.train()
        for batch in loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = nn.functional.mse_loss(self.model(batch["x"]), batch["y"])
            self.scaler.scale(loss).backward()
            self.clip_gradients()
            self.scaler.step(self.optimizer)
            self.scaler.update()
