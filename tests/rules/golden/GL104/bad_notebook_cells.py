# %%
import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.1)

# %%
for epoch in range(3):
    for xb, yb in train_dl:
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()  # expect: GL104
        opt.zero_grad()
