import torch

# fp16 is not supported on this hardware: keep the scaler calls, switched off
scaler = torch.amp.GradScaler("cuda", enabled=False)
for inputs, labels in loader:
    optimizer.zero_grad()
    outputs = model(inputs)
    loss = criterion(outputs, labels)
    scaler.scale(loss).backward()
    optimizer.step()
