import torch

from losses import compute_loss  # divides by accum_steps itself


def fit(model, loader, optimizer, accum_steps=4):
    for i, (x, y) in enumerate(loader):
        loss = compute_loss(model(x), y, accum_steps=accum_steps)
        loss.backward()
        if (i + 1) % accum_steps == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
