import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr, clip):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.clip = clip

    def optimize(self):
        nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.optimizer.step()
        self.optimizer.zero_grad()

    def train_epoch(self, loader):
        for images, labels in loader:
            loss = self.criterion(self.model(images), labels)
            loss.backward()
            self.optimize()
