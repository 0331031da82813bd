import torch

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    optimizer.step(loss.backward())  # expect: GL105
