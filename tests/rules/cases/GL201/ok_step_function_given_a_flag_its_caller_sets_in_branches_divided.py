"""A step function told whether to apply the window by a flag its caller sets in branches of a
counter that resets, dividing the loss by the window."""

import torch


def train_step(model, optimizer, batch, apply_gradient, accum_iters):
    images, labels = batch
    loss = torch.nn.functional.cross_entropy(model(images), labels)
    (loss / accum_iters).backward()
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
                train_step(model, optimizer, batch, apply_gradient, accum_iters)
            except RuntimeError as error:
                if "out of memory" not in str(error):
                    raise
                torch.cuda.empty_cache()
