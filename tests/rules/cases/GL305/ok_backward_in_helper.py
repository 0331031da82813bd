import torch

scaler = torch.amp.GradScaler("cuda")


def backward(loss):
    scaler.scale(loss).backward()


for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    backward(loss)
    scaler.step(optimizer)
    scaler.update()
