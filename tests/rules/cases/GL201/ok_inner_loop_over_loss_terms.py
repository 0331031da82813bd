"""Two objectives of one batch backpropagated one after the other (their graphs are freed in
turn) before one step: a sum of losses, not micro-batches to average."""
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, epochs=10):
    for epoch in range(epochs):
        for images, labels in loader:
            optimizer.zero_grad()
            logits, reconstruction = model(images)
            objectives = (F.cross_entropy(logits, labels), F.mse_loss(reconstruction, images))
            for objective in objectives:
                objective.backward(retain_graph=True)
            optimizer.step()
