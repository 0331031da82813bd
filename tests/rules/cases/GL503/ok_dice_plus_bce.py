import torch
import torch.nn as nn
import torch.nn.functional as F

criterion = nn.BCEWithLogitsLoss()


def dice_loss(probs, target, eps=1.0):
    inter = (probs * target).sum()
    return 1 - (2 * inter + eps) / (probs.sum() + target.sum() + eps)


for images, masks in loader:
    masks_pred = model(images)
    loss = criterion(masks_pred.squeeze(1), masks.float())
    loss += dice_loss(F.sigmoid(masks_pred.squeeze(1)), masks.float())
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
