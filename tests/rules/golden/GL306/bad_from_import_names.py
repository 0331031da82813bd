import torch
from torch.amp import GradScaler, autocast

scaler = GradScaler("cuda")  # expect: GL306
for images, labels in loader:
    optimizer.zero_grad()
    with autocast("cuda"):  # expect: GL306
        loss = criterion(model(images.cuda()), labels.cuda())
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
