import torch

scaler = torch.amp.GradScaler("cuda", enabled=False)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    scaler.step(optimizer)  # a disabled scaler just calls optimizer.step()
    scaler.update()
