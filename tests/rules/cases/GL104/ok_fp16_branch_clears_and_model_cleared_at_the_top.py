"""Only the fp16 side clears through the optimizer, but the model's gradients are cleared at
the top of every iteration on both sides."""
import torch


def train(model, loader, optimizer, fp16=False):
    for inputs, targets in loader:
        model.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        loss.backward()
        if fp16:
            optimizer.step()
            optimizer.zero_grad()
        else:
            optimizer.step()
