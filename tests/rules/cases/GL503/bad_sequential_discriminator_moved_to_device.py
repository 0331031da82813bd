"""A GAN tutorial at module level: the discriminator is an nn.Sequential ending in nn.Sigmoid,
moved to the device under the same name, and its output is fed to nn.BCELoss."""
import torch
import torch.nn as nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
latent_size, hidden_size, image_size, batch_size = 64, 256, 784, 100

D = nn.Sequential(
    nn.Linear(image_size, hidden_size),
    nn.LeakyReLU(0.2),
    nn.Linear(hidden_size, 1),
    nn.Sigmoid(),
)
G = nn.Sequential(nn.Linear(latent_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, image_size), nn.Tanh())
D = D.to(device)
G = G.to(device)

criterion = nn.BCELoss()
d_optimizer = torch.optim.Adam(D.parameters(), lr=0.0002)
g_optimizer = torch.optim.Adam(G.parameters(), lr=0.0002)

for epoch in range(200):
    for images, _ in data_loader:
        images = images.reshape(batch_size, -1).to(device)
        real_labels = torch.ones(batch_size, 1, device=device)
        fake_labels = torch.zeros(batch_size, 1, device=device)

        outputs = D(images)
        d_loss_real = criterion(outputs, real_labels)  # expect: GL503
        fake_images = G(torch.randn(batch_size, latent_size, device=device))
        outputs = D(fake_images.detach())
        d_loss_fake = criterion(outputs, fake_labels)  # expect: GL503
        d_optimizer.zero_grad()
        (d_loss_real + d_loss_fake).backward()
        d_optimizer.step()

        outputs = D(fake_images)
        g_loss = criterion(outputs, real_labels)  # expect: GL503
        g_optimizer.zero_grad()
        g_loss.backward()
        g_optimizer.step()
