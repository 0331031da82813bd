import torch
import torch.nn as nn


class AMPTrainer:
    def __init__(self, model, loader, lr=1e-3, clip_norm=5.0):
        self.model = model.cuda()
        self.loader = loader
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cuda")
        self.criterion = nn.CrossEntropyLoss()
        self.clip_norm = clip_norm

    def train_epoch(self, epoch):
        self.model.train()
        for step, (x, y) in enumerate(self.loader):
            x, y = x.cuda(), y.cuda()
            self.optimizer.zero_grad()
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                loss = self.criterion(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(self.optimizer)
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_norm)  # expect: GL301
            self.scaler.step(self.optimizer)
            self.scaler.update()
            if step % 100 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
