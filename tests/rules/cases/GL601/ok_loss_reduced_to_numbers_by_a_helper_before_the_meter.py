"""The loss is handed to a helper that all-reduces it across processes and gives back Python
numbers (`.item()`), then scaled: the meter receives a float, not the tensor."""
import torch
import torch.distributed as dist
import torch.nn as nn


class AverageMeter:
    """Computes and stores the average and current value."""

    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def reduce_to_numbers(variables, group=None):
    for i in range(len(variables)):
        dist.all_reduce(variables[i], group=group)
        variables[i] = variables[i].item()
    return variables


def train_one_epoch(model, loader, optimizer, world_size):
    criterion = nn.CrossEntropyLoss()
    losses = AverageMeter("Loss", ":.4e")
    model.train()
    for images, target in loader:
        loss = criterion(model(images), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        [loss] = reduce_to_numbers(variables=[loss])
        loss = loss / float(world_size)
        losses.update(loss, images.size(0))
    return losses.avg
