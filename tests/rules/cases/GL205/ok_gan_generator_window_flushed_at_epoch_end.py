"""The discriminator steps on every batch; the generator accumulates over a window that also
closes on the epoch's last batch."""
import torch


def train_discriminator(generator, discriminator, real, optimizer_d):
    fake = generator(torch.randn(real.size(0), 128, device=real.device)).detach()
    loss = torch.relu(1 - discriminator(real)).mean() + torch.relu(1 + discriminator(fake)).mean()
    optimizer_d.zero_grad()
    loss.backward()
    optimizer_d.step()


def train_generator(generator, discriminator, batch_size, accumulation_steps, device):
    fake = generator(torch.randn(batch_size, 128, device=device))
    loss = -discriminator(fake).mean() / accumulation_steps
    loss.backward()


def train(generator, discriminator, loader, optimizer_g, optimizer_d, epochs, accumulation_steps=4, device="cuda"):
    for epoch in range(epochs):
        for batch_idx, real in enumerate(loader):
            real = real.to(device)
            train_discriminator(generator, discriminator, real, optimizer_d)
            train_generator(generator, discriminator, real.size(0), accumulation_steps, device)
            if (batch_idx + 1) % accumulation_steps == 0 or batch_idx + 1 == len(loader):
                optimizer_g.step()
                optimizer_g.zero_grad()
