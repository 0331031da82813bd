import torch
from torch.nn.utils import clip_grad_value_

scaler = torch.amp.GradScaler("cuda")


def train_step(model, optimizer, batch):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_grad_value_(model.parameters(), 0.5)
    scaler.unscale_(optimizer)  # expect: GL304
    scaler.step(optimizer)
    scaler.update()
