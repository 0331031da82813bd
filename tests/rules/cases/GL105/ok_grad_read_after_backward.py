import torch

x = torch.randn(8, 3, requires_grad=True)
for step in range(10):
    y = (x ** 2).sum()
    y.backward()
    grad = x.grad.clone()
    with torch.no_grad():
        x -= 0.1 * grad
    x.grad = None
