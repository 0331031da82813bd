# %%
import torch
import torch.nn.functional as F

# %%
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=500, gamma=0.5)
ACCUM = 4

# %%
for k, (xb, yb) in enumerate(train_dl):
    loss = F.cross_entropy(net(xb), yb) / ACCUM
    loss.backward()
    if (k + 1) % ACCUM == 0 or k + 1 == len(train_dl):
        opt.step()
        sched.step()  # expect: GL204
        opt.zero_grad()
