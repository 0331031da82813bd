import torch

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    # first pass: ascent step to the neighbourhood (SAM)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    optimizer.first_step(zero_grad=True)
    scaler.update()
    # second pass: the actual update
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
