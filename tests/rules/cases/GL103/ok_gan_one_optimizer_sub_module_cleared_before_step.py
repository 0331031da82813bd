import torch
from torch import nn


def train_gan_detector(model, windows, epochs, lr=1e-3):
    """One optimizer covers generator and discriminator; each turn clears the other
    network's gradients before stepping, so only the network of that turn moves."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    bce = nn.BCELoss()
    mse = nn.MSELoss()
    real_label, fake_label = torch.tensor([0.9]), torch.tensor([0.1])
    for epoch in range(epochs):
        for window in windows:
            model.discriminator.zero_grad()
            _, real, fake = model(window)
            d_loss = bce(real, real_label) + bce(fake, fake_label)
            d_loss.backward()
            model.generator.zero_grad()
            optimizer.step()

            reconstruction, _, fake = model(window)
            g_loss = bce(fake, real_label) + mse(reconstruction, window)
            g_loss.backward()
            model.discriminator.zero_grad()
            optimizer.step()
