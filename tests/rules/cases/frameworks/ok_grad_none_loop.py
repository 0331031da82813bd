import torch
import torch.nn.functional as F

from unet import DiffusionUNet
from diffusion import GaussianDiffusion
from data import image_loader

accum = 4
model = DiffusionUNet(dim=64, dim_mults=(1, 2, 4, 8)).cuda()
diffusion = GaussianDiffusion(timesteps=1000)
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-4)
loader = image_loader("ffhq-128", batch_size=16)

for epoch in range(100):
    for i, images in enumerate(loader):
        images = images.cuda()
        t = torch.randint(0, diffusion.num_timesteps, (images.size(0),), device="cuda")
        noise = torch.randn_like(images)
        loss = F.mse_loss(model(diffusion.q_sample(images, t, noise), t), noise) / accum
        loss.backward()
        if (i + 1) % accum == 0:  # expect: GL205
            optimizer.step()
            for p in model.parameters():
                p.grad = None
