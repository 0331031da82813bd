import torch

# CPU run: the scaler is kept for code symmetry but switched off
scaler = torch.amp.GradScaler("cpu", enabled=False)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
