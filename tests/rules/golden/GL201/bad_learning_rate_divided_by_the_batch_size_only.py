import torch
from torch import optim


def main(cfg, model, loader):
    """The rate is divided by the batch size (the losses are summed over samples), not by the
    subdivisions: each update is `subdivision` times the mean micro-batch's."""
    batch_size = cfg["TRAIN"]["BATCHSIZE"]
    subdivision = cfg["TRAIN"]["SUBDIVISION"]
    base_lr = cfg["TRAIN"]["LR"] / batch_size
    optimizer = optim.SGD(model.parameters(), lr=base_lr, momentum=0.9)
    batches = iter(loader)
    for iteration in range(cfg["TRAIN"]["MAXITER"]):
        optimizer.zero_grad()
        for _ in range(subdivision):
            images, targets = next(batches)
            loss = model(images, targets)
            (loss / subdivision).backward()  # expect: GL201
        optimizer.step()
