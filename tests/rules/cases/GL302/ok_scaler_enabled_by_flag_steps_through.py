"""The same flag-enabled scaler, stepped and updated through the scaler."""

import torch


def train(args, model, optimizer, loader):
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=args.amp):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
