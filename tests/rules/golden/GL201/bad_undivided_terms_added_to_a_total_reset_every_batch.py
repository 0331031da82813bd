"""The same trainer adding each micro-batch's whole loss to the running total: the window's
gradients are the sum of `accum_steps` full losses."""
import torch


class RewardTrainer:
    def __init__(self, model, optimizer, accum_steps=4):
        self.model = model
        self.optimizer = optimizer
        self.accum_steps = accum_steps

    def pairwise_loss(self, chosen, rejected):
        margin = self.model(chosen) - self.model(rejected)
        return -torch.nn.functional.logsigmoid(margin).mean()

    def train_one_epoch(self, loader):
        running_loss = 0
        for i, (chosen, rejected) in enumerate(loader):
            loss = self.pairwise_loss(chosen, rejected)
            running_loss += loss
            (running_loss / self.accum_steps).backward()  # expect: GL201
            if (i + 1) % self.accum_steps == 0 or i + 1 == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
            running_loss = 0
