"""Accumulation kept by hand: each micro-batch's gradients are added into a dict and cleared, and
the sums are written back to `.grad` before the one step. The clear on every micro-batch drops
nothing, and each micro-batch loss is divided by the window."""

from collections import defaultdict

import torch


def train_epoch(model, loader, opt, scaler, acc_steps, batch_size):
    model.train()
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        accum_grad = defaultdict(lambda: 0)
        chunk = batch_size // acc_steps
        for acc_step in range(acc_steps):
            x_curr = x[acc_step * chunk:(acc_step + 1) * chunk]
            y_curr = y[acc_step * chunk:(acc_step + 1) * chunk]
            with torch.autocast("cuda", dtype=torch.float16):
                obj = torch.nn.functional.cross_entropy(model(x_curr), y_curr) / acc_steps
            scaler.scale(obj).backward()
            for param in model.parameters():
                if param.grad is not None:
                    accum_grad[param] += param.grad
            opt.zero_grad()
        for param in accum_grad.keys():
            param.grad = accum_grad[param]
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
