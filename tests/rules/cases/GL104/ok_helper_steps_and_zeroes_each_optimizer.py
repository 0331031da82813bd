import torch


def apply_update(optimizer, scheduler):
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()


def train_gan(G, D, optimizer, d_opt, g_sched, d_sched, loader, z_dim):
    """One helper steps and clears whichever optimizer each turn hands it (its parameter shares a name with G's)."""
    for real in loader:
        fake = G(torch.randn(real.size(0), z_dim))
        d_loss = torch.nn.functional.softplus(D(fake.detach())).mean() + torch.nn.functional.softplus(-D(real)).mean()
        d_loss.backward()
        apply_update(d_opt, d_sched)
        g_loss = torch.nn.functional.softplus(-D(fake)).mean()
        g_loss.backward()
        apply_update(optimizer, g_sched)
