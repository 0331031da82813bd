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
        self.global_step = 0

    def train_epoch(self, epoch):
        self.model.train()
        self.optimizer.zero_grad()
        for batch_idx, (inputs, targets) in enumerate(self.loader):
            inputs, targets = inputs.to(self.device), targets.to(self.device)
            logits = self.model(inputs)
            loss = self.criterion(logits, targets)
            loss.backward()  # expect: GL201
            if (batch_idx + 1) % self.accum_steps == 0:  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
                self.global_step += 1
        print(f"epoch {epoch} done after {self.global_step} updates")

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_epoch(epoch)
