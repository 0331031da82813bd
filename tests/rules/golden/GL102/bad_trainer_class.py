import torch
import torch.nn as nn


class Trainer:
    def __init__(self, model, lr, clip):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.clip = clip

    def train_epoch(self, loader):
        self.model.train()
        for images, labels in loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(images), labels)
            loss.backward()
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)  # expect: GL102
            self.optimizer.step()
