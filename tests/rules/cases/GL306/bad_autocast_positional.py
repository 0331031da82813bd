import torch
from torch.cuda.amp import autocast


def forward_backward(model, batch, use_amp):
    with autocast(use_amp):  # expect: GL306
        loss = model(**batch).loss
    loss.backward()
    return loss
