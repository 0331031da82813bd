"""A multi-task script keeps a gradient-surgery optimizer behind a switch it leaves off at the
top (`grad_optimizer = None`, the wrapped line commented out): its branch never runs, and the
plain optimizer is cleared every batch."""
import torch
import torch.nn.functional as F

model = torch.nn.Linear(784, 20)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
grad_optimizer = None
loader = [(torch.randn(32, 784), torch.randint(0, 10, (32,)), torch.randint(0, 10, (32,)))]

for epoch in range(10):
    for images, left, right in loader:
        out_left, out_right = model(images).split(10, dim=1)
        losses = [F.cross_entropy(out_left, left), F.cross_entropy(out_right, right)]
        optimizer.zero_grad()
        if grad_optimizer is not None:
            grad_optimizer.pc_backward(losses)
            grad_optimizer.step()
        else:
            sum(losses).backward()
            optimizer.step()
