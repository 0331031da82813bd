import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for x, y in loader:
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    for p in model.parameters():
        p.grad = None  # expect: GL103
