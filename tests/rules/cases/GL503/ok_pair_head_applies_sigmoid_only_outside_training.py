"""A re-identification network pretrained on pairs: its comparison head applies the sigmoid
only when it is not asked for training (`train=False`, at tracking time); the pretraining loss
asks with `train=True` and feeds the logits to the with-logits loss, which is right."""

import torch
import torch.nn as nn
import torch.nn.functional as F


class ReIDNet(nn.Module):
    def __init__(self, backbone, dim=128):
        super().__init__()
        self.backbone = backbone
        self.fc_compare = nn.Linear(dim, 1)

    def forward(self, x):
        return self.backbone(x)

    def compare(self, e0, e1, train=False):
        out = torch.abs(e0 - e1)
        out = self.fc_compare(out)
        if not train:
            out = torch.sigmoid(out)
        return out

    def pair_losses(self, anchors, positives, negatives):
        e0, e1, e2 = self.forward(anchors), self.forward(positives), self.forward(negatives)
        out_pos = self.compare(e0, e1, train=True)
        out_neg = self.compare(e0, e2, train=True)
        loss_pos = F.binary_cross_entropy_with_logits(out_pos, torch.ones_like(out_pos))
        loss_neg = F.binary_cross_entropy_with_logits(out_neg, torch.zeros_like(out_neg))
        return (loss_pos + loss_neg) / 2


def pretrain(net, loader, optimizer):
    for anchors, positives, negatives in loader:
        loss = net.pair_losses(anchors, positives, negatives)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
