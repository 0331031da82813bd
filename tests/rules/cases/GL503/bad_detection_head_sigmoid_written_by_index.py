import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class YoloLoss(nn.Module):
    def __init__(self, n_classes=80, n_anchors=3):
        super().__init__()
        self.n_classes = n_classes
        self.n_anchors = n_anchors

    def forward(self, outputs, targets):
        loss_xy, loss_obj, loss_cls = 0, 0, 0
        for output, target in zip(outputs, targets):
            batch, size = output.shape[0], output.shape[2]
            n_ch = 5 + self.n_classes
            output = output.view(batch, self.n_anchors, n_ch, size, size).permute(0, 1, 3, 4, 2)
            # xy offsets, objectness and classes become probabilities; wh stay raw
            output[..., np.r_[:2, 4:n_ch]] = torch.sigmoid(output[..., np.r_[:2, 4:n_ch]])
            loss_xy += F.binary_cross_entropy(input=output[..., :2], target=target[..., :2], reduction="sum")  # expect: GL503
            loss_obj += F.binary_cross_entropy(input=output[..., 4], target=target[..., 4], reduction="sum")  # expect: GL503
            loss_cls += F.binary_cross_entropy(output[..., 5:], target[..., 5:], reduction="sum")  # expect: GL503
        return loss_xy + loss_obj + loss_cls


def train(model, loader, optimizer, epochs=300):
    criterion = YoloLoss()
    for _ in range(epochs):
        for images, targets in loader:
            loss = criterion(model(images), targets)
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
