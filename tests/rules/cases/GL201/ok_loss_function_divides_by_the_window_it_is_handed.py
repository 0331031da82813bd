"""The loss function averages over its frames and then divides by the accumulation window its
caller hands it: the loss that reaches backward is divided by the window."""
import torch
import torch.nn.functional as F


def batch_loss(preds, labels, accum_steps):
    total = sum(F.cross_entropy(p, l, reduction="sum") for p, l in zip(preds, labels))
    n_frames = sum(len(label) for label in labels)
    return total / n_frames / accum_steps


def train(model, optimizer, loader, accum_steps):
    optimizer.zero_grad()
    for step, (feats, labels) in enumerate(loader):
        loss = batch_loss(model(feats), labels, accum_steps)
        loss.backward()
        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
