import torch
import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, train_loader, lr=3e-4, max_grad_norm=1.0, device="cpu"):
        self.model = model.to(device)
        self.loader = train_loader
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.01)
        self.max_grad_norm = max_grad_norm
        self.device = device

    def train_epoch(self):
        self.model.train()
        total = 0.0
        for batch in self.loader:
            inputs = batch["input"].to(self.device)
            targets = batch["target"].to(self.device)
            self.optimizer.zero_grad(set_to_none=True)
            loss = F.mse_loss(self.model(inputs), targets)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.max_grad_norm)  # expect: GL101
            self.optimizer.step()
            total += loss.item()
        return total / len(self.loader)

    def fit(self, epochs):
        for epoch in range(epochs):
            train_loss = self.train_epoch()
            print(f"epoch {epoch}: train loss {train_loss:.4f}")
