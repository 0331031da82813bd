import torch

opt_d = torch.optim.Adam(disc.parameters(), lr=2e-4)
opt_g = torch.optim.Adam(gen.parameters(), lr=2e-4)

for real in loader:
    d_loss = d_loss_fn(disc, gen, real)
    d_loss.backward()
    opt_g.zero_grad()
    opt_d.step()
    opt_d.zero_grad()
    g_loss = g_loss_fn(disc, gen)
    g_loss.backward()
    opt_g.step()
