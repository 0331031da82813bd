import torch

total = torch.zeros(())
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    total += loss.detach()  # expect: GL601
print("epoch loss", total.item() / len(loader))
