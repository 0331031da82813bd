import torch
from torch.optim.lr_scheduler import StepLR


def train_one_epoch(model, loader, optimizer, criterion, device):
    model.train()
    for images, labels in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = criterion(model(images.to(device)), labels.to(device))
        loss.backward()
        optimizer.step()


def fit(model, loader, epochs, device):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = StepLR(optimizer, step_size=30, gamma=0.1)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        train_one_epoch(model, loader, optimizer, criterion, device)
        scheduler.step()
