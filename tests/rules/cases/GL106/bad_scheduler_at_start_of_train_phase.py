import torch
from torch import nn


def train_model(model, loaders, sizes, criterion, optimizer, scheduler, num_epochs=25, device="cpu"):
    """The tutorial shape: one pass per phase each epoch, the scheduler stepped as the train
    phase begins, so every epoch runs on the rate meant for the next one."""
    for epoch in range(num_epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                scheduler.step()  # expect: GL106
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            for inputs, labels in loaders[phase]:
                inputs, labels = inputs.to(device), labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                running_loss += loss.item() * inputs.size(0)
            print(f"{phase} loss: {running_loss / sizes[phase]:.4f}")
    return model


def main(model, loaders, sizes):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=7, gamma=0.1)
    return train_model(model, loaders, sizes, nn.CrossEntropyLoss(), optimizer, scheduler)
