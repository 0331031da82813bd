"""A multi-task trainer handles train and evaluation batches alike: `training = split ==
Split.TRAIN` switches the backward and the step on, it counts nothing. Each task's sub-batch
clears, backpropagates its mean loss and copies the gradients out; the averaged copies are
written back before the one step."""
import enum

import torch
import torch.nn.functional as F


class Split(enum.Enum):
    TRAIN = "train"
    DEV = "dev"


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def handle_batch(self, batch, split=Split.TRAIN):
        training = split == Split.TRAIN
        kept = []
        for inputs, labels in batch:
            loss = F.cross_entropy(self.model(inputs), labels)
            if training:
                self.optimizer.zero_grad()
                loss.backward()
                kept.append([p.grad.clone() for p in self.model.parameters()])
        if training:
            for p, *grads in zip(self.model.parameters(), *kept):
                p.grad = torch.stack(grads).mean(0)
            self.optimizer.step()
