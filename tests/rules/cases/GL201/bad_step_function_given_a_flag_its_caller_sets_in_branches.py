"""A step function told whether to apply the window by a flag its caller sets in branches of a
counter that resets (`if n >= k: n = 0; apply = True else: apply = False`): the loss is summed
over the window undivided."""

import torch


def train_step(model, optimizer, batch, apply_gradient):
    images, labels = batch
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    loss.backward()  # expect: GL201
    if apply_gradient:
        optimizer.step()
        optimizer.zero_grad()
    return loss.item()


def train(model, optimizer, loader, epochs, accum_iters):
    accumulated = 0
    for epoch in range(epochs):
        for batch in loader:
            accumulated += 1
            if accumulated >= accum_iters:
                accumulated = 0
                apply_gradient = True
            else:
                apply_gradient = False
            try:
                train_step(model, optimizer, batch, apply_gradient)
            except RuntimeError as error:
                if "out of memory" not in str(error):
                    raise
                torch.cuda.empty_cache()
