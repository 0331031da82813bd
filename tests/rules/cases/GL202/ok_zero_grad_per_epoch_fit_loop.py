import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, loader, lr=1e-3, accum_steps=4, device="cuda"):
        self.model = model.to(device)
        self.loader = loader
        self.device = device
        self.accum_steps = accum_steps
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)

    def train_epoch(self, epoch):
        self.model.train()
        # once per epoch, before the first window: not inside the accumulation
        self.optimizer.zero_grad()
        for batch_idx, (inputs, targets) in enumerate(self.loader):
            inputs, targets = inputs.to(self.device), targets.to(self.device)
            loss = self.criterion(self.model(inputs), targets) / self.accum_steps
            loss.backward()
            if (batch_idx + 1) % self.accum_steps == 0:  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
        return loss.item() * self.accum_steps

    def fit(self, epochs):
        for epoch in range(epochs):
            last = self.train_epoch(epoch)
            print(f"epoch {epoch}: last micro-batch loss {last:.4f}")
