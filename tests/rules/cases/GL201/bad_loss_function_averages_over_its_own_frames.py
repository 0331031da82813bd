"""A diarization trainer's loss function sums each utterance's permutation-invariant loss and
divides by the number of frames it was handed: a mean over its own batch. The loop accumulates
`grad_accum` batches before stepping and never divides by that window."""
import numpy as np
import torch
import torch.nn.functional as F


def utterance_loss(pred, label):
    return F.binary_cross_entropy_with_logits(pred, label, reduction="sum")


def batch_loss(preds, labels):
    losses = [utterance_loss(p, l) for p, l in zip(preds, labels)]
    total = torch.stack(losses).sum()
    n_frames = np.sum([label.shape[0] for label in labels])
    return total / n_frames


def train(model, optimizer, loader, epochs, grad_accum):
    for epoch in range(epochs):
        optimizer.zero_grad()
        for step, (feats, labels) in enumerate(loader):
            preds = model(feats)
            loss = batch_loss(preds, labels)
            loss.backward()  # expect: GL201
            if (step + 1) % grad_accum == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
