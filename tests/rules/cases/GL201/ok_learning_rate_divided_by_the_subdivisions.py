import torch
from torch import optim


def main(cfg, model, loader):
    """Darknet's convention: the summed losses of `subdivision` micro-batches are applied at a
    learning rate divided by the batch size and the subdivisions, the update of their mean."""
    batch_size = cfg["TRAIN"]["BATCHSIZE"]
    subdivision = cfg["TRAIN"]["SUBDIVISION"]
    base_lr = cfg["TRAIN"]["LR"] / batch_size / subdivision
    optimizer = optim.SGD(model.parameters(), lr=base_lr, momentum=0.9)
    batches = iter(loader)
    for iteration in range(cfg["TRAIN"]["MAXITER"]):
        optimizer.zero_grad()
        for _ in range(subdivision):
            images, targets = next(batches)
            loss = model(images, targets)
            loss.backward()
        optimizer.step()
