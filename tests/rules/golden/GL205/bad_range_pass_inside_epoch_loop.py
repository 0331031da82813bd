"""Each epoch draws `iters` micro-batches from a restarting iterator; the window test uses the
pass's own index, so when `iters` is no multiple of the window the last partial window's
gradients are carried into the next epoch's first step."""
import torch
from torch import nn


def train(model, loader, optimizer, args):
    iters = args.iters
    for epoch_id in range(args.num_epochs):
        model.train()
        batches = iter(loader)
        for step in range(iters):
            x, y = next(batches)
            loss = nn.functional.cross_entropy(model(x), y) / args.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == iters:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
