"""The threshold a sharded optimizer's own clip takes as its first argument, scaled with the
gradients: silent."""
import torch
from torch import nn

from vqa.models import VisualBERT
from vqa.data import vqa2_loader


def clip_gradients(optimizer, max_norm, scale=1.0):
    # a sharded optimizer clips its own shards (its threshold is its one argument); the
    # gradients are still scaled: scale the threshold with them
    return optimizer.clip_grad_norm(max_norm * scale)


def train(epochs=10, max_norm=0.25):
    model = VisualBERT().cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(epochs):
        for batch in vqa2_loader(batch_size=32):
            optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(**batch).loss
            scaler.scale(loss).backward()
            clip_gradients(optimizer, max_norm, scale=scaler.get_scale())
            scaler.step(optimizer)
            scaler.update()
