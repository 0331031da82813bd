import torch
import torch.nn as nn


class Discriminator(nn.Module):
    def __init__(self, ndf=64):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(3, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, 1, 4, 1, 0, bias=False),
        )

    def forward(self, x):
        return torch.sigmoid(self.main(x)).view(-1, 1).squeeze(1)


def train(generator, loader, opt_d, nz, device):
    """The discriminator already ends in a sigmoid, and the criterion applies another."""
    netD = Discriminator().to(device)
    criterion = nn.BCEWithLogitsLoss()
    for real, _ in loader:
        netD.zero_grad()
        output = netD(real)
        label = torch.ones(real.size(0), device=device)
        err_real = criterion(output, label)  # expect: GL503
        err_real.backward()
        noise = torch.randn(real.size(0), nz, 1, 1, device=device)
        fake_out = netD(generator(noise).detach())
        err_fake = criterion(fake_out, torch.zeros_like(label))  # expect: GL503
        err_fake.backward()
        opt_d.step()
