"""A block that turns its own flag off runs on one micro-batch at most: measuring the FLOPs of a
forward and backward once, then clearing what that left, is no per-micro-batch zero_grad."""
import torch


def measure_flops(model, batch, loss_fn):
    loss = loss_fn(model(batch["x"]), batch["y"])
    loss.backward()


def train(model, loader, optimizer, loss_fn, accumulate=4, count_flops=True):
    flops_counted = False
    for i, batch in enumerate(loader):
        if count_flops and not flops_counted:
            measure_flops(model, batch, loss_fn)
            optimizer.zero_grad()
            flops_counted = True
        loss = loss_fn(model(batch["x"]), batch["y"]) / accumulate
        loss.backward()
        if (i + 1) % accumulate == 0 or i + 1 == len(loader):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
