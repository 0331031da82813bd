"""A GAN whose generator clip sits between the discriminator's step and the generator's own
backward: it clips what the discriminator's backward left on the generator, which the
generator's zero_grad then clears; the generator steps unclipped."""
import torch

opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)

for real in loader:
    d_loss = d_loss_fn(disc, gen, real)
    opt_d.zero_grad()
    d_loss.backward()
    torch.nn.utils.clip_grad_norm_(disc.parameters(), 1.0)
    opt_d.step()
    g_loss = g_loss_fn(disc, gen)
    opt_g.zero_grad()
    g_loss.backward()
    torch.nn.utils.clip_grad_norm_(gen.parameters(), 1.0)  # expect: GL102
    opt_g.step()
