import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    grads = loss.backward()  # expect: GL105
    optimizer.step()
    grad_norms.append(grads)
