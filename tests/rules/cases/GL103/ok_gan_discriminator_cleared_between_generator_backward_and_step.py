import torch


def train(G, D, loader, opt_g, opt_d, z_dim=128):
    """The generator's loss backpropagates through the discriminator too; the discriminator's
    gradients from it are cleared before its own turn, while the generator's wait for its step."""
    for real in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        g_loss = -D(fake).mean()
        g_loss.backward()
        opt_d.zero_grad()
        d_loss = torch.relu(1.0 - D(real)).mean() + torch.relu(1.0 + D(fake.detach())).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.step()
        opt_g.zero_grad()
