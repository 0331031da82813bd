"""A reward-model trainer that adds each micro-batch's divided loss to a running total, steps
every `accum_steps` batches, and resets the total at the end of every batch: what it
backpropagates is the divided loss."""
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
            running_loss += loss / self.accum_steps
            running_loss.backward()
            if (i + 1) % self.accum_steps == 0 or i + 1 == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
            running_loss = 0
