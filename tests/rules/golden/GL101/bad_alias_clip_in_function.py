import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_ as clip
from torch.optim.lr_scheduler import CosineAnnealingLR

from models import ResNet18
from data import cifar10_loaders


def train(epochs: int = 30, lr: float = 0.05, max_norm: float = 2.0, device: str = "cuda"):
    model = ResNet18(num_classes=10).to(device)
    train_loader, _ = cifar10_loaders(batch_size=128)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
    scheduler = CosineAnnealingLR(optimizer, T_max=epochs)

    for epoch in range(epochs):
        model.train()
        correct = 0
        for images, targets in train_loader:
            images, targets = images.to(device), targets.to(device)
            optimizer.zero_grad(set_to_none=True)
            logits = model(images)
            loss = F.cross_entropy(logits, targets, label_smoothing=0.1)
            loss.backward()
            clip(model.parameters(), max_norm)  # expect: GL101
            optimizer.step()
            correct += (logits.argmax(1) == targets).sum().item()
        scheduler.step()
        print(f"epoch {epoch} train acc {correct / len(train_loader.dataset):.3f}")
    return model


if __name__ == "__main__":
    train()
