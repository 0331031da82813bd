import torch

scaler = torch.amp.GradScaler("cuda") if use_fp16 else None
for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", enabled=use_fp16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward() if scaler else loss.backward()
    scaler.step(optimizer) if scaler else optimizer.step()
    if scaler:
        scaler.update()
