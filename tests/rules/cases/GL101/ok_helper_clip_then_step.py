import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_

from vit import VisionTransformer
from data import imagenet_loader


def optimizer_step(model, optimizer, max_norm):
    grad_norm = clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return grad_norm


def main(epochs=300, clip=1.0):
    model = VisionTransformer(image_size=224, patch_size=16, num_classes=1000)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
    loader = imagenet_loader("train", batch_size=64)

    for epoch in range(epochs):
        for i, batch in enumerate(loader):
            logits = model(batch["pixel_values"])
            loss = F.cross_entropy(logits, batch["labels"])
            loss.backward()
            gnorm = optimizer_step(model, optimizer, clip)
            if i % 200 == 0:
                print(f"epoch {epoch} it {i} loss {loss.item():.4f} |g| {gnorm:.2f}")


if __name__ == "__main__":
    main()
