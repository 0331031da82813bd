"""A variational autoencoder on MNIST whose decoder ends in a sigmoid; the reconstruction term
is binary cross-entropy on the decoder's output, in a loss function the loop calls."""
import torch
import torch.nn.functional as F
from torch import nn, optim


class VAE(nn.Module):
    def __init__(self, latent=20):
        super().__init__()
        self.enc = nn.Linear(784, 400)
        self.mu = nn.Linear(400, latent)
        self.logvar = nn.Linear(400, latent)
        self.dec1 = nn.Linear(latent, 400)
        self.dec2 = nn.Linear(400, 784)

    def encode(self, x):
        h = F.relu(self.enc(x))
        return self.mu(h), self.logvar(h)

    def decode(self, z):
        return torch.sigmoid(self.dec2(F.relu(self.dec1(z))))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, 784))
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.decode(z), mu, logvar


def vae_loss(recon_x, x, mu, logvar):
    bce = F.binary_cross_entropy(recon_x, x.view(-1, 784), reduction="sum")  # expect: GL503
    kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return bce + kld


def train(model, loader, optimizer, device, epoch):
    model.train()
    total = 0.0
    for data, _ in loader:
        data = data.to(device)
        optimizer.zero_grad()
        recon, mu, logvar = model(data)
        loss = vae_loss(recon, data, mu, logvar)
        loss.backward()
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch}: {total / len(loader.dataset):.4f}")


def main(loader, device, epochs=10):
    model = VAE().to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(1, epochs + 1):
        train(model, loader, optimizer, device, epoch)
