import torch

scaler = torch.amp.GradScaler("cuda")
for images, targets in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        cls_loss, box_loss = detector(images, targets)
    total = cls_loss + 2.0 * box_loss
    scaler.scale(total).backward()
    scaler.step(optimizer)
    scaler.update()
