import argparse

import torch
import torch.nn as nn

from dataset import get_loader
from unet import UNet


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--max_grad_norm", type=float, default=0.0)
    args = parser.parse_args()

    model = UNet(in_channels=3, out_channels=1)
    optimizer = torch.optim.RMSprop(model.parameters(), lr=args.lr, weight_decay=1e-8, momentum=0.9)
    criterion = nn.BCEWithLogitsLoss()
    loader = get_loader("train", batch_size=8)

    for epoch in range(args.epochs):
        epoch_loss = 0.0
        for images, masks in loader:
            masks_pred = model(images)
            loss = criterion(masks_pred, masks)
            optimizer.zero_grad()
            loss.backward()
            if args.max_grad_norm > 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)  # expect: GL101
            optimizer.step()
            epoch_loss += loss.item()
        print(f"epoch {epoch + 1}: {epoch_loss / len(loader):.4f}")


if __name__ == "__main__":
    main()
