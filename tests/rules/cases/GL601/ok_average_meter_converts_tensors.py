import torch
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
        if isinstance(val, torch.Tensor):
            val = val.item()
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def train_one_epoch(model, loader, optimizer, device, print_freq=50):
    criterion = nn.CrossEntropyLoss()
    losses = AverageMeter("Loss", ":.4e")
    model.train()
    for i, (images, target) in enumerate(loader):
        images, target = images.to(device), target.to(device)
        output = model(images)
        loss = criterion(output, target)
        losses.update(loss, images.size(0))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % print_freq == 0:
            print(f"[{i}/{len(loader)}] loss {losses.avg:.4f}")
    return losses.avg
