import torch
from torch import nn


def reduce_loss(loss):
    """Sum over the labels, mean over the samples of this batch."""
    return loss.sum() / loss.shape[0]


def train(model, loader, optimizer, args):
    criterion = nn.BCEWithLogitsLoss(reduction="none")
    for epoch in range(args.n_epochs):
        model.train()
        for i, (inputs, targets) in enumerate(loader):
            outputs = model(inputs)
            loss = reduce_loss(criterion(outputs, targets))
            batch_size = inputs.size(0)
            ((batch_size * loss) / args.step).backward()  # expect: GL201
            if (i + 1) % args.step == 0 or i + 1 == len(loader):
                optimizer.step()
                optimizer.zero_grad()
