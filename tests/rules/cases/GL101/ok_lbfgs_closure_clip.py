import torch
import torch.nn as nn

from pinn import PINN, collocation_points, boundary_loss, pde_residual

model = PINN(layers=[2, 64, 64, 64, 1])
optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=20, history_size=50,
                              line_search_fn="strong_wolfe")
x_f = collocation_points(10_000).requires_grad_(True)


def closure():
    optimizer.zero_grad()
    loss = pde_residual(model, x_f).pow(2).mean() + boundary_loss(model)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 10.0)
    return loss


for it in range(500):
    loss = optimizer.step(closure)
    if it % 50 == 0:
        print(f"iter {it}: loss {loss.item():.3e}")
