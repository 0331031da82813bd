import torch

scaler = torch.amp.GradScaler("cuda", init_scale=1024.0, growth_interval=10 ** 9)
for step, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update(1024.0)  # keep a fixed loss scale
