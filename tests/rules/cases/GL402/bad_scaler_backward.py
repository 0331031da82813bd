import torch

scaler = torch.amp.GradScaler("cuda")
for i, (images, labels) in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(ddp_model(images), labels) / accumulation
    if (i + 1) % accumulation != 0:  # expect: GL205
        with ddp_model.no_sync():  # expect: GL402
            scaler.scale(loss).backward()
    else:
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
