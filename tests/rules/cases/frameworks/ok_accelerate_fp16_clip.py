import torch
import torch.nn.functional as F
from accelerate import Accelerator

from models import ResNet50
from data import imagenet_loader


def main():
    accelerator = Accelerator(mixed_precision="fp16")
    model = ResNet50(num_classes=1000)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    loader = imagenet_loader("train", batch_size=128)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

    for epoch in range(90):
        for images, labels in loader:
            optimizer.zero_grad()
            loss = F.cross_entropy(model(images), labels)
            accelerator.backward(loss)
            # unscales the fp16 gradients itself before clipping
            accelerator.clip_grad_norm_(model.parameters(), max_norm=2.0)
            optimizer.step()
        accelerator.print(f"epoch {epoch}: {loss.item():.4f}")


if __name__ == "__main__":
    main()
