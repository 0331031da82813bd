import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


class Trainer:
    def __init__(self, model, lr, steps):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.scheduler = CosineAnnealingLR(self.optimizer, T_max=steps)

    def train(self, loader):
        for images, labels in loader:
            self.scheduler.step()  # expect: GL106
            self.optimizer.zero_grad()
            loss = self.model.loss(images, labels)
            loss.backward()
            self.optimizer.step()
