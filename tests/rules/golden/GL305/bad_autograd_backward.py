import torch

scaler = torch.amp.GradScaler("cuda")
for inputs, targets in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(inputs), targets)
    scaler.scale(loss)
    torch.autograd.backward(scaler.scale(loss))  # expect: GL305
    scaler.step(optimizer)
    scaler.update()
