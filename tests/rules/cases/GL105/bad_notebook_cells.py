# %%
import torch
import torch.nn.functional as F

# %%
w = torch.randn(10, 1, requires_grad=True)
x, y = torch.randn(64, 10), torch.randn(64, 1)

# %%
loss = F.mse_loss(x @ w, y)
g = loss.backward()  # expect: GL105
with torch.no_grad():
    w -= 0.1 * w.grad
