import torch

opt_d = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_g = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))

for epoch in range(epochs):
    for real, _ in loader:
        netD.zero_grad()
        fake = netG(torch.randn(real.size(0), 100, 1, 1))
        errD = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
        errD.backward()
        opt_d.step()
        netG.zero_grad()
        errG = criterion(netD(fake), ones)
        errG.backward()
        opt_g.step()
