import argparse

import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_

from vit import VisionTransformer
from data import imagenet_loader


def train_step(model, optimizer, batch, max_norm):
    optimizer.zero_grad()
    logits = model(batch["pixel_values"])
    loss = F.cross_entropy(logits, batch["labels"])
    loss.backward()
    grad_norm = clip_grad_norm_(model.parameters(), max_norm)  # expect: GL101
    optimizer.step()
    return loss.item(), grad_norm.item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=300)
    parser.add_argument("--clip", type=float, default=1.0)
    args = parser.parse_args()

    model = VisionTransformer(image_size=224, patch_size=16, num_classes=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    loader = imagenet_loader("train", batch_size=64)

    for epoch in range(args.epochs):
        for i, batch in enumerate(loader):
            loss, gnorm = train_step(model, optimizer, batch, args.clip)
            if i % 200 == 0:
                print(f"epoch {epoch} it {i} loss {loss:.4f} |g| {gnorm:.2f}")


if __name__ == "__main__":
    main()
