# %%
import torch
import torch.nn as nn
import torch.nn.functional as F

# %%
net = nn.Sequential(nn.Flatten(), nn.Linear(784, 128), nn.ReLU(), nn.Linear(128, 10))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1000, gamma=0.5)

# %%
for xb, yb in train_dl:
    loss = F.cross_entropy(net(xb), yb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    sched.step()  # expect: GL106
