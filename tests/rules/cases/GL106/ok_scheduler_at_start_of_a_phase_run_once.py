import torch
import torch.nn.functional as F


def pretrain(model, loader, optimizer, epochs):
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()


def finetune(model, loader, optimizer, scheduler):
    """Runs once, after pretraining stepped the same optimizer: the scheduler moves to the
    fine-tuning rate before the first fine-tuning step, as intended."""
    scheduler.step()
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()


def main(model, pretrain_loader, finetune_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[1], gamma=0.1)
    pretrain(model, pretrain_loader, optimizer, epochs=10)
    finetune(model, finetune_loader, optimizer, scheduler)
