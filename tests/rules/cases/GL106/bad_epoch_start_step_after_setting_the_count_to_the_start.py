"""The ultralytics-style trainer with the count set to the start epoch itself, not one behind it:
the step at each epoch's start moves to the next epoch's rate before any of its updates."""
import math
import warnings

import torch
from torch import optim


class DetectionTrainer:
    def __init__(self, model, train_loader, epochs=100, lrf=0.01, start_epoch=0):
        self.model = model
        self.train_loader = train_loader
        self.epochs = epochs
        self.lrf = lrf
        self.start_epoch = start_epoch

    def _setup_scheduler(self):
        self.lf = lambda x: ((1 - math.cos(x * math.pi / self.epochs)) / 2) * (self.lrf - 1) + 1
        self.scheduler = optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda=self.lf)

    def _setup_train(self):
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
        self._setup_scheduler()
        self.scheduler.last_epoch = self.start_epoch  # resumed at the start epoch

    def _do_train(self):
        self._setup_train()
        self.optimizer.zero_grad()
        for epoch in range(self.start_epoch, self.epochs):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the step before optimizer.step() is meant
                self.scheduler.step()  # expect: GL106
            self.model.train()
            for images, targets in self.train_loader:
                loss, _ = self.model(images, targets)
                loss.backward()
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=10.0)
                self.optimizer.step()
                self.optimizer.zero_grad()
