import torch
import torch.nn.functional as F

from models import WideResNet
from data import cifar_loader


def train_one_epoch(model, loader, optimizer, scheduler, accum, device="cuda"):
    model.train()
    for step, (images, labels) in enumerate(loader):
        images, labels = images.to(device), labels.to(device)
        logits = model(images)
        loss = F.cross_entropy(logits, labels)
        (loss / accum).backward()
        if (step + 1) % accum == 0 or step + 1 == len(loader):  # expect: GL205
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)  # expect: GL202


def main():
    model = WideResNet(depth=28, widen_factor=10, num_classes=10).cuda()
    loader = cifar_loader(batch_size=64)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4, nesterov=True)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=200 * len(loader) // 2)
    for epoch in range(200):
        train_one_epoch(model, loader, optimizer, scheduler, accum=2)


if __name__ == "__main__":
    main()
