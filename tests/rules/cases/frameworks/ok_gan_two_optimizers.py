import torch
import torch.nn as nn

from wgan import Generator, Critic, gradient_penalty
from data import lsun_loader

z_dim, n_critic, lambda_gp = 128, 5, 10.0
G, D = Generator(z_dim).cuda(), Critic().cuda()
opt_g = torch.optim.Adam(G.parameters(), lr=1e-4, betas=(0.0, 0.9))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-4, betas=(0.0, 0.9))
loader = lsun_loader("bedroom", batch_size=64)

for epoch in range(20):
    for i, (real, _) in enumerate(loader):
        real = real.cuda()
        z = torch.randn(real.size(0), z_dim, device="cuda")
        fake = G(z)
        opt_d.zero_grad()
        loss_d = D(fake.detach()).mean() - D(real).mean() + lambda_gp * gradient_penalty(D, real, fake.detach())
        loss_d.backward()
        opt_d.step()
        # the generator is updated once every n_critic critic updates
        if (i + 1) % n_critic == 0:
            opt_g.zero_grad()
            loss_g = -D(G(z)).mean()
            loss_g.backward()
            nn.utils.clip_grad_norm_(G.parameters(), 10.0)
            opt_g.step()
