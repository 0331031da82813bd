"""A cosine schedule without a floor reaches a learning rate of 0 every few epochs; the epoch
function steps the scheduler at its start only when the rate stands at 0, to skip an epoch that
would not train: a step chosen by where the schedule stands, not a step out of order."""
import torch


def train(model, train_loader, optimizer, scheduler, criterion, epoch):
    model.train()
    if optimizer.state_dict()["param_groups"][0]["lr"] == 0:
        scheduler.step()
    for images, labels in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(images), labels)
        loss.backward()
        optimizer.step()
    scheduler.step()


def main(model, train_loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-6, weight_decay=0.001)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=5)
    criterion = torch.nn.CrossEntropyLoss()
    for epoch in range(epochs):
        train(model, train_loader, optimizer, scheduler, criterion, epoch)
