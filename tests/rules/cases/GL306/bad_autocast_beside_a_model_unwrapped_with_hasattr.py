"""A regression trainer under the old AMP spelling: the `hasattr(model, "module")` unwrap in
the same block is about DDP, not about which torch is installed."""
import torch
from torch.cuda.amp import GradScaler, autocast


class Trainer:
    def __init__(self, model, optimizer, scheduler):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.scaler = GradScaler()  # expect: GL306

    def train_one_epoch(self, loader):
        self.model.train()
        for inputs, targets in loader:
            self.optimizer.zero_grad()
            with autocast():  # expect: GL306
                net = self.model.module if hasattr(self.model, "module") else self.model
                loss = torch.nn.functional.mse_loss(net(inputs).squeeze(-1), targets)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
