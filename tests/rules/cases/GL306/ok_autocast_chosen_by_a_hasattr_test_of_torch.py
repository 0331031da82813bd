"""The autocast context is chosen by asking torch whether it has the new API."""
import torch

autocast = torch.amp.autocast if hasattr(torch, "amp") and hasattr(torch.amp, "autocast") else torch.cuda.amp.autocast


def evaluate(model, loader):
    with torch.no_grad(), autocast("cuda") if hasattr(torch, "amp") else torch.cuda.amp.autocast():
        return [model(x) for x in loader]
