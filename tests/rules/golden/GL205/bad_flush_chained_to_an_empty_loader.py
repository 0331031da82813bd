"""A CycleGAN-style loop accumulating both players over `GRADIENT_ACCUMULATION` batches. The
generator's step also fires on the epoch's last batch; the discriminator's test was meant to do
the same but chains `== len(...) == 0`, which Python reads as `... == len(...) and len(...) ==
0`: it never holds for a loader being iterated, so the discriminator's last partial window is
never stepped."""

import torch

GRADIENT_ACCUMULATION = 3


def train(disc, gen, train_loader, opt_disc, opt_gen, l1, mse, d_scaler, g_scaler, device="cuda"):
    for batch_idx, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        with torch.autocast("cuda", dtype=torch.float16):
            y_fake = gen(x)
            d_real = disc(x, y)
            d_fake = disc(x, y_fake.detach())
            d_loss = (mse(d_real, torch.ones_like(d_real)) + mse(d_fake, torch.zeros_like(d_fake))) / 2
        d_scaler.scale(d_loss / GRADIENT_ACCUMULATION).backward()
        if (batch_idx + 1) % GRADIENT_ACCUMULATION == 0 or (batch_idx + 1) == len(train_loader) == 0 or batch_idx + 1 == len(train_loader):  # expect: GL205
            d_scaler.step(opt_disc)
            d_scaler.update()
            opt_disc.zero_grad()

        with torch.autocast("cuda", dtype=torch.float16):
            d_fake = disc(x, y_fake)
            g_loss = mse(d_fake, torch.ones_like(d_fake)) + 100 * l1(y_fake, y)
        g_scaler.scale(g_loss / GRADIENT_ACCUMULATION).backward()
        if (batch_idx + 1) % GRADIENT_ACCUMULATION == 0 or (batch_idx + 1) == len(train_loader):
            g_scaler.step(opt_gen)
            g_scaler.update()
            opt_gen.zero_grad()
