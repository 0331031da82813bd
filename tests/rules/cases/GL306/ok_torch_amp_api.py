import torch
from torch.amp import GradScaler, autocast

scaler = GradScaler("cuda")
for x, y in loader:
    optimizer.zero_grad()
    with autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
