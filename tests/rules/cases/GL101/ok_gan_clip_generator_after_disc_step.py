import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_

from dcgan import Generator, Discriminator
from data import celeba_loader

nz = 100
netG, netD = Generator(nz), Discriminator()
opt_g = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
bce = nn.BCEWithLogitsLoss()
loader = celeba_loader(batch_size=128)

for epoch in range(25):
    for real, _ in loader:
        noise = torch.randn(real.size(0), nz, 1, 1)
        fake = netG(noise)
        # discriminator update
        opt_d.zero_grad()
        d_real, d_fake = netD(real), netD(fake.detach())
        loss_d = bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))
        loss_d.backward()
        clip_grad_norm_(netD.parameters(), 1.0)
        opt_d.step()
        # generator update: its clip runs after the discriminator's step, before its own
        opt_g.zero_grad()
        d_out = netD(fake)
        loss_g = bce(d_out, torch.ones_like(d_out))
        loss_g.backward()
        clip_grad_norm_(netG.parameters(), 1.0)
        opt_g.step()
    print(f"epoch {epoch}: D {loss_d.item():.3f} G {loss_g.item():.3f}")
