import torch

from wgan.models import Generator, Critic
from wgan.data import celeba_loader


def train(epochs=20, n_critic=5, clip_value=0.01, latent_dim=100, device="cuda"):
    generator, critic = Generator(latent_dim).to(device), Critic().to(device)
    opt_g = torch.optim.RMSprop(generator.parameters(), lr=5e-5)
    opt_c = torch.optim.RMSprop(critic.parameters(), lr=5e-5)
    for epoch in range(epochs):
        for i, real in enumerate(celeba_loader(batch_size=64)):
            real = real.to(device)
            z = torch.randn(real.size(0), latent_dim, device=device)
            opt_c.zero_grad()
            loss_c = -torch.mean(critic(real)) + torch.mean(critic(generator(z).detach()))
            loss_c.backward()
            opt_c.step()
            for p in critic.parameters():
                p.data.clamp_(-clip_value, clip_value)
            opt_g.zero_grad()
            if i % n_critic == 0:
                loss_g = -torch.mean(critic(generator(z)))
                loss_g.backward()
                opt_g.step()
