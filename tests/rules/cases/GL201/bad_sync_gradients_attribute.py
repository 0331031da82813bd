import torch
import torch.nn as nn

from models import ConvNeXt
from datasets import imagenet_loader


class Trainer:
    def __init__(self, model, loader, lr=4e-3, grad_accum=4, device="cuda"):
        self.model = model.to(device)
        self.loader = loader
        self.device = device
        self.grad_accum = grad_accum
        self.criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr, weight_decay=0.05)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=300)
        self.micro_step = 0
        self.sync_gradients = False

    def _advance(self):
        self.micro_step += 1
        self.sync_gradients = self.micro_step % self.grad_accum == 0

    def training_step(self, images, labels):
        self._advance()
        logits = self.model(images.to(self.device))
        loss = self.criterion(logits, labels.to(self.device))
        loss.backward()  # expect: GL201
        if self.sync_gradients:
            nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
            self.optimizer.step()
            self.optimizer.zero_grad()
        return loss.item()

    def fit(self, epochs):
        for epoch in range(epochs):
            for images, labels in self.loader:
                self.training_step(images, labels)
            self.scheduler.step()


if __name__ == "__main__":
    Trainer(ConvNeXt(depths=[3, 3, 9, 3]), imagenet_loader(batch_size=64)).fit(300)
