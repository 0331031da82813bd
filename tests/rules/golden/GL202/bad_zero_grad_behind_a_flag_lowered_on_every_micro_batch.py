"""The block raises its flag, but the end of every micro-batch lowers it again: the zero_grad
under it runs on every micro-batch, not once."""
import torch


def train(model, loader, optimizer, loss_fn, accumulate=4):
    cleared = False
    for step, (x, y) in enumerate(loader):
        if not cleared:
            cleared = True
        loss = loss_fn(model(x), y) / accumulate
        loss.backward()
        if (step + 1) % accumulate == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()  # expect: GL202
        cleared = False
