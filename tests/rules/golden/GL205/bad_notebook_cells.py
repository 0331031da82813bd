# %%
import torch
import torch.nn.functional as F

# %%
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
ACCUM = 4

# %%
for epoch in range(3):
    for k, (xb, yb) in enumerate(train_dl):
        loss = F.cross_entropy(net(xb), yb) / ACCUM
        loss.backward()
        if (k + 1) % ACCUM == 0 or k + 1 == len(train_dl):  # expect: GL205
            opt.step()
            opt.zero_grad()
