import torch
import torch.nn.functional as F


def train(model, loader, optimizer, batch_gpu=8, device="cuda"):
    """The batch is cut into rounds that fit in memory; each round's mean loss backpropagates
    and one step follows the rounds, so it applies their sum."""
    model.train()
    for images, labels in loader:
        image_rounds = images.to(device).split(batch_gpu)
        label_rounds = labels.to(device).split(batch_gpu)
        optimizer.zero_grad(set_to_none=True)
        for x, y in zip(image_rounds, label_rounds):
            loss = F.cross_entropy(model(x), y)
            loss.backward()  # expect: GL201
        optimizer.step()
