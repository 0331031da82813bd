import torch
from torch import nn


class Trainer:
    def __init__(self, model: nn.Module, lr: float = 1e-3):
        self.model = model.cuda()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler()
        self.loss_fn = nn.MSELoss()

    def train_epoch(self, loader):
        self.model.train()
        total = 0.0
        for x, y in loader:
            x, y = x.cuda(), y.cuda()
            self.optimizer.zero_grad()
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                loss = self.loss_fn(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)  # expect: GL302
            self.scaler.update()
            total += loss.item()
        return total / len(loader)
