import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F
from apex import amp

from dataset import CloudDataset
from models import build_unet


def soft_dice_loss(logits, targets, eps=1.0):
    probs = torch.sigmoid(logits)
    inter = (probs * targets).sum((2, 3))
    union = probs.sum((2, 3)) + targets.sum((2, 3))
    return 1 - ((2 * inter + eps) / (union + eps)).mean()


def combo_loss(logits, labels, fc, labels_fc, weights=[0.1, 0.5, 1.0]):
    # weights -> [image classification, pixel dice, pixel bce]
    loss_fc = weights[0] * nn.BCEWithLogitsLoss()(fc, labels_fc)
    loss_dice = weights[1] * soft_dice_loss(logits, labels)
    loss_bce = weights[2] * F.binary_cross_entropy_with_logits(logits, labels)
    loss = loss_fc + loss_dice + loss_bce
    return loss, [loss_fc, loss_dice, loss_bce]


def train(args, model, optimizer, train_loader):
    for epoch in range(args.epochs):
        model.train()
        optimizer.zero_grad()
        for i, (inputs, targets) in enumerate(train_loader):
            inputs, targets = inputs.cuda(), targets.cuda()
            targets_fc = (targets.flatten(2).sum(-1) > 0).float()
            logits = model(inputs)
            logits_fc = logits.flatten(2).max(-1)[0]
            loss, _ = combo_loss(logits, labels=targets, fc=logits_fc, labels_fc=targets_fc, weights=args.loss_weights)
            with amp.scale_loss(loss / args.step, optimizer) as scaled_loss:
                scaled_loss.backward()  # expect: GL201
            if (i + 1) % args.step == 0 or i + 1 == len(train_loader):
                optimizer.step()
                optimizer.zero_grad()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--step", type=int, default=4)
    parser.add_argument("--loss_weights", type=float, nargs=3, default=[0.1, 0.5, 1.0])
    args = parser.parse_args()
    model = build_unet("resnet34").cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    model, optimizer = amp.initialize(model, optimizer, opt_level="O1")
    train_loader = torch.utils.data.DataLoader(CloudDataset("train"), batch_size=8, shuffle=True)
    train(args, model, optimizer, train_loader)
