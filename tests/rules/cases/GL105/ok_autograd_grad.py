import torch

for x, y in loader:
    loss = criterion(model(x), y)
    grads = torch.autograd.grad(loss, list(model.parameters()), create_graph=True)
    penalty = sum(g.pow(2).sum() for g in grads)
    (loss + penalty).backward()
    optimizer.step()
    optimizer.zero_grad()
