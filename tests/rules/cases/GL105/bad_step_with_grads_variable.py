import torch

optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    gradients = loss.backward()  # expect: GL105
    optimizer.step(gradients)
