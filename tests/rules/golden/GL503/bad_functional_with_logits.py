import torch
import torch.nn.functional as F


def mask_loss(mask_logits, gt_masks):
    pred = torch.sigmoid(mask_logits)
    return F.binary_cross_entropy_with_logits(mask_logits, gt_masks, reduction="mean")  # expect: GL503
