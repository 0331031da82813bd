"""A VAE with a discriminator, both through Accelerate: the discriminator's turn steps first,
then the VAE's turn clips the decoder's gradients before its own backward. The clip acts on
what the discriminator's turn left (nothing of the VAE's), and the VAE's step takes its
gradients unclipped."""
import torch
import torch.nn.functional as F
from accelerate import Accelerator

accelerator = Accelerator(gradient_accumulation_steps=2)
accelerator_d = Accelerator(gradient_accumulation_steps=2)
vae = torch.nn.Sequential(torch.nn.Linear(64, 16), torch.nn.ReLU(), torch.nn.Linear(16, 64))
discriminator = torch.nn.Sequential(torch.nn.Linear(64, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
optimizer = torch.optim.AdamW(vae.parameters(), lr=1e-4)
optimizer_d = torch.optim.AdamW(discriminator.parameters(), lr=1e-4)
loader = torch.utils.data.DataLoader(torch.randn(256, 64), batch_size=16)
vae, optimizer, loader = accelerator.prepare(vae, optimizer, loader)
discriminator, optimizer_d = accelerator_d.prepare(discriminator, optimizer_d)

for epoch in range(10):
    for step, batch in enumerate(loader):
        with torch.no_grad():
            reconstruction = vae(batch)
        with accelerator_d.accumulate(discriminator):
            d_loss = F.relu(1 - discriminator(batch)).mean() + F.relu(1 + discriminator(reconstruction)).mean()
            accelerator_d.backward(d_loss)
            optimizer_d.step()
            optimizer_d.zero_grad()
        with accelerator.accumulate(vae):
            reconstruction = vae(batch)
            loss = F.mse_loss(reconstruction, batch) - 0.1 * discriminator(reconstruction).mean()
            accelerator.clip_grad_norm_(vae.parameters(), 1.0)  # expect: GL102, GL203
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
