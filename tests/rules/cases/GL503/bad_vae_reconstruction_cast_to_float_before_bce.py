"""A music VAE whose decoder ends in a sigmoid; the trainer casts the reconstruction to float32
for the loss (`recon_batch.float()`) and takes binary cross-entropy on the probabilities."""

import torch
import torch.nn.functional as F


class VAEModel(torch.nn.Module):
    def __init__(self, input_dim=128, latent_dim=64):
        super().__init__()
        self.encoder = torch.nn.Linear(input_dim, 2 * latent_dim)
        self.decoder_output = torch.nn.Linear(latent_dim, input_dim)

    def decode(self, z):
        return torch.sigmoid(self.decoder_output(z))

    def forward(self, x):
        mu, logvar = torch.chunk(self.encoder(x), 2, dim=-1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        recon_x = self.decode(z)
        return recon_x, mu, logvar


def train_epoch(model, dataloader, optimizer, device):
    model.train()
    for batch in dataloader:
        batch = batch.to(device, non_blocking=True)
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            recon_batch, mu, logvar = model(batch)
        recon_batch_float = recon_batch.float()
        recon_loss = F.binary_cross_entropy(recon_batch_float, batch, reduction="sum")  # expect: GL503
        kl_loss = -0.5 * torch.sum(1 + logvar.float() - mu.float().pow(2) - logvar.float().exp())
        loss = (recon_loss + kl_loss) / batch.size(0)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def main(dataloader, device="cuda"):
    model = VAEModel().to(device)
    train_epoch(model, dataloader, torch.optim.Adam(model.parameters(), lr=1e-3), device)
