# %%
import torch
import torch.nn.functional as F

# %%
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
ACCUM = 4

# %%
for k, (xb, yb) in enumerate(train_dl):
    loss = F.cross_entropy(net(xb), yb) / ACCUM
    loss.backward()
    torch.nn.utils.clip_grad_norm_(net.parameters(), 2.0)  # expect: GL203
    if (k + 1) % ACCUM == 0 or k + 1 == len(train_dl):
        opt.step()
        opt.zero_grad()
