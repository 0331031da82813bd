import torch
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, scheduler, device):
    model.train()
    for images, targets in loader:
        images, targets = images.to(device), targets.to(device)
        optimizer.zero_grad()
        F.cross_entropy(model(images), targets).backward()
        optimizer.step()
    scheduler.step()


def main(model, loader, epochs=90, device="cuda"):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer, scheduler, device)
