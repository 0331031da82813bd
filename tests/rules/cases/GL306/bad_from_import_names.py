import torch
from torch.cuda.amp import GradScaler, autocast

scaler = GradScaler()  # expect: GL306
for images, labels in loader:
    optimizer.zero_grad()
    with autocast():  # expect: GL306
        loss = criterion(model(images.cuda()), labels.cuda())
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
