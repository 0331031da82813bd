import torch
import torch.nn as nn


class TabularModel(nn.Module):
    def __init__(self, num_features, accumulation_steps=1, fp16=False):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(num_features, 256), nn.ReLU(), nn.Linear(256, 1))
        self.accumulation_steps = accumulation_steps
        self.optimizer = torch.optim.AdamW(self.parameters(), lr=1e-3)
        self.batch_index = 0

    def train_one_step(self, features, target):
        if self.accumulation_steps == 1 and self.batch_index == 0:
            self.zero_grad()
        loss = nn.functional.mse_loss(self.net(features).squeeze(-1), target) / self.accumulation_steps
        loss.backward()
        if (self.batch_index + 1) % self.accumulation_steps == 0:
            self.optimizer.step()
            if self.batch_index > 0:
                self.zero_grad()
        return loss.item()

    def train_one_epoch(self, loader):
        self.train()
        for self.batch_index, (features, target) in enumerate(loader):
            self.train_one_step(features, target)
