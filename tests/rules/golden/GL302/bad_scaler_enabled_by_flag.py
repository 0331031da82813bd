"""The scaler is on exactly when `--amp` is given; the step then bypasses it and applies
gradients still multiplied by the loss scale."""

import argparse

import torch


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args()

    model = torch.nn.Linear(32, 4).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda", enabled=args.amp)
    loader = [(torch.randn(8, 32).cuda(), torch.randint(0, 4, (8,)).cuda()) for _ in range(10)]
    for epoch in range(args.epochs):
        for x, y in loader:
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=args.amp):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            scaler.step(optimizer)  # expect: GL302
            scaler.update()
