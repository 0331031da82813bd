# %%
import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)

# %%
for epoch in range(3):
    for xb, yb in train_dl:
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        opt.zero_grad()  # expect: GL103
