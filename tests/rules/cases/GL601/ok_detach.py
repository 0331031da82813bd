import torch

total = torch.zeros((), device="cuda")
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total += loss.detach()
print(total.item())
