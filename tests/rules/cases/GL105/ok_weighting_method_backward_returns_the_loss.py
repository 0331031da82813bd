"""Multi-task training with a loss-weighting method object: its `backward(losses=...,
shared_parameters=...)` combines the task losses, runs autograd itself and returns the
combined loss and extra outputs; no tensor's backward() result is used."""
import torch


def train(model, weight_method, optimizer, train_loader, criteria, epochs):
    for epoch in range(epochs):
        for images, targets in train_loader:
            optimizer.zero_grad()
            predictions, features = model(images, return_representation=True)
            losses = torch.stack([criterion(p, t) for criterion, p, t in zip(criteria, predictions, targets)])
            loss, extra_outputs = weight_method.backward(
                losses=losses,
                shared_parameters=list(model.shared_parameters()),
                task_specific_parameters=list(model.task_specific_parameters()),
                representation=features,
            )
            optimizer.step()
            if "weights" in extra_outputs:
                print(epoch, loss.item(), extra_outputs["weights"])
