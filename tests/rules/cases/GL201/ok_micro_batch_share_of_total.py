import torch
import torch.nn as nn

from vision.data import build_loader
from vision.models import resnet50


def train_one_epoch(model, loader, optimizer, criterion, total_batch_size, accum_steps):
    """Each micro-batch's loss is weighed by its share of the window's samples, so the window's
    gradient is the mean over all of them, short micro-batches included."""
    model.train()
    optimizer.zero_grad()
    for i, (images, targets) in enumerate(loader):
        images, targets = images.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        loss = criterion(model(images), targets)
        loss = loss * (images.size(0) / total_batch_size)
        loss.backward()
        if (i + 1) % accum_steps == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()


def main(batch_size=64, accum_steps=4, epochs=90):
    model = resnet50().cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = build_loader(batch_size)
    for _ in range(epochs):
        train_one_epoch(model, loader, optimizer, nn.CrossEntropyLoss(), batch_size * accum_steps, accum_steps)
