import torch
import torch.nn as nn

bce = nn.BCELoss()
for real, _ in loader:
    d_real = torch.sigmoid(netD(real))
    loss_real = bce(d_real, torch.ones_like(d_real))  # expect: GL503
    optimizerD.zero_grad()
    loss_real.backward()
    optimizerD.step()
