import torch
import torch.nn.functional as F
from torch import nn


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 400)
        self.fc21 = nn.Linear(400, 20)
        self.fc22 = nn.Linear(400, 20)
        self.fc3 = nn.Linear(20, 400)
        self.fc4 = nn.Linear(400, 784)

    def decode(self, z):
        return torch.sigmoid(self.fc4(F.relu(self.fc3(z))))

    def forward(self, x):
        h = F.relu(self.fc1(x.view(-1, 784)))
        mu, logvar = self.fc21(h), self.fc22(h)
        z = mu + torch.randn_like(logvar) * torch.exp(0.5 * logvar)
        return self.decode(z), mu, logvar


def train_epoch(loader, device):
    """The reconstruction goes through the decoder's sigmoid and then through a with-logits loss,
    which applies another."""
    model = VAE().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for data, _ in loader:
        data = data.to(device)
        optimizer.zero_grad()
        recon, mu, logvar = model(data)
        bce = F.binary_cross_entropy_with_logits(recon, data.view(-1, 784), reduction="sum")  # expect: GL503
        kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        (bce + kld).backward()
        optimizer.step()
