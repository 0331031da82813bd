from functools import partial

import torch


def train(model, loader, optimizer, max_norm=1.0):
    clip = partial(torch.nn.utils.clip_grad_norm_, max_norm=max_norm)
    for x, y in loader:
        loss = torch.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        clip(model.parameters())  # expect: GL101
        optimizer.step()
