import torch.nn as nn
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer
        self.loss_fn = nn.CrossEntropyLoss()

    def fit(self, loader):
        for x, y in loader:
            preds = F.softmax(self.model(x), dim=1)
            loss = self.loss_fn(preds, y)  # expect: GL502
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
