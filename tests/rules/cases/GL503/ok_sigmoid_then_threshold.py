import torch


@torch.no_grad()
def predict(model, x, threshold=0.5):
    return (torch.sigmoid(model(x)) > threshold).long()
