"""pix2pix with accumulation: both optimizers step together every `accumulation_steps` batches,
and after the epoch's validation a last update flushes the partial window."""
import torch


def train(generator, discriminator, loader, val_loader, optim_g, optim_d, epochs, accumulation_steps=4):
    bce = torch.nn.BCEWithLogitsLoss()
    for epoch in range(epochs):
        for idx, (source, target) in enumerate(loader):
            fake = generator(source)
            d_real, d_fake = discriminator(source, target), discriminator(source, fake.detach())
            d_loss = (bce(d_real, torch.ones_like(d_real)) + bce(d_fake, torch.zeros_like(d_fake))) / 2
            (d_loss / accumulation_steps).backward()
            g_fake = discriminator(source, fake)
            g_loss = bce(g_fake, torch.ones_like(g_fake)) + 100 * torch.nn.functional.l1_loss(fake, target)
            (g_loss / accumulation_steps).backward()
            if (idx + 1) % accumulation_steps == 0:
                optim_d.step()
                optim_g.step()
                optim_d.zero_grad()
                optim_g.zero_grad()
        generator.eval()
        with torch.no_grad():
            psnr = sum(torch.nn.functional.mse_loss(generator(s), t).item() for s, t in val_loader)
        print(f"epoch {epoch}: validation {psnr:.4f}")
        generator.train()
        if len(loader) % accumulation_steps != 0:
            optim_d.step()
            optim_g.step()
            optim_d.zero_grad()
            optim_g.zero_grad()
