import torch
from torch import nn


def reduce_loss(loss, window):
    """Sum over the labels, mean over the samples of the whole window."""
    return loss.sum() / (loss.shape[0] * window)


def train(model, loader, optimizer, args):
    criterion = nn.BCEWithLogitsLoss(reduction="none")
    for epoch in range(args.n_epochs):
        model.train()
        for i, (inputs, targets) in enumerate(loader):
            outputs = model(inputs)
            loss = reduce_loss(criterion(outputs, targets), args.step)
            batch_size = inputs.size(0)
            (batch_size * loss).backward()
            if (i + 1) % args.step == 0 or i + 1 == len(loader):
                optimizer.step()
                optimizer.zero_grad()
