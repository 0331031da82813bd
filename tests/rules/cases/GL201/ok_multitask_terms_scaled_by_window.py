"""Each task term is scaled by a weight and by the window's share before the terms are summed:
the weight alone would not divide, the share does."""

import torch


def train(args, model, loader, optimizer):
    share = 1.0 / args.accumulation_steps
    for step, (x, y) in enumerate(loader):
        ce, kl = model(x, y)
        ce = args.ce_weight * ce * share
        kl = args.kl_weight * kl * share
        total = None
        for term in (ce, kl):
            total = term if total is None else total + term
        total.backward()
        if (step + 1) % args.accumulation_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
