import torch
from torch import nn


def train_model(model, loaders, sizes, criterion, optimizer, scheduler, num_epochs=25):
    """The scheduler steps once the train phase's batches are done: its order is right."""
    for epoch in range(num_epochs):
        for phase in ("train", "val"):
            model.train() if phase == "train" else model.eval()
            running_loss = 0.0
            for inputs, labels in loaders[phase]:
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    loss = criterion(model(inputs), labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
            if phase == "train":
                scheduler.step()
            print(f"{phase} loss: {running_loss / sizes[phase]:.4f}")
    return model


def main(model, loaders, sizes):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
    return train_model(model, loaders, sizes, nn.CrossEntropyLoss(), optimizer, scheduler)
