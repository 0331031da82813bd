import torch
import torch.nn.functional as F


def train_gan(generator, discriminator, loader, epochs, latent_dim=128):
    opt_g = torch.optim.Adam(generator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(discriminator.parameters(), lr=2e-4, betas=(0.5, 0.999))
    sched_g = torch.optim.lr_scheduler.LinearLR(opt_g, start_factor=1.0, end_factor=0.0, total_iters=epochs * len(loader))
    sched_d = torch.optim.lr_scheduler.LinearLR(opt_d, start_factor=1.0, end_factor=0.0, total_iters=epochs * len(loader))
    for epoch in range(epochs):
        for real, _ in loader:
            z = torch.randn(real.size(0), latent_dim)
            fake = generator(z)

            opt_d.zero_grad()
            d_loss = F.softplus(discriminator(fake.detach())).mean() + F.softplus(-discriminator(real)).mean()
            d_loss.backward()
            opt_d.step()

            opt_g.zero_grad()
            g_loss = F.softplus(-discriminator(fake)).mean()
            g_loss.backward()
            opt_g.step()
            sched_g.step()  # expect: GL106
            sched_d.step()  # expect: GL106
