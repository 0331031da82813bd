"""YOLO trainer class: the epoch's length is kept on self in __init__, and the step waits for
the window (or the epoch's end), but the model's gradients are cleared on every micro-batch."""
import torch
from torch import amp


class Trainer:
    def __init__(self, model, train_dataloader, optimizer, criterion, accumulate, device):
        self.model, self.optimizer, self.criterion = model, optimizer, criterion
        self.train_dataloader = train_dataloader
        self.train_batches = len(self.train_dataloader)
        self.accumulate, self.device = accumulate, device
        self.scaler = amp.GradScaler("cuda")

    def train_on_epoch(self, epoch):
        self.model.train()
        for batch_idx, (images, targets) in enumerate(self.train_dataloader):
            images, targets = images.to(self.device), targets.to(self.device)
            with amp.autocast("cuda"):
                loss = self.criterion(self.model(images), targets) / self.accumulate
            self.scaler.scale(loss).backward()
            if (batch_idx + 1) % self.accumulate == 0 or (batch_idx + 1) == self.train_batches:
                self.scaler.step(self.optimizer)
                self.scaler.update()
                self.model.zero_grad(set_to_none=True)  # expect: GL202
