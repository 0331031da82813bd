"""A GAN trained under AMP with one GradScaler per network: each turn clips its network's
gradients between the scaled backward and the scaler's step, without unscaling them."""
import torch
from torch.nn.utils import clip_grad_norm_


def train_epoch(gen, disc, opt_g, opt_d, loader, adversarial_loss, max_norm=1.0):
    scaler_g = torch.amp.GradScaler("cuda")
    scaler_d = torch.amp.GradScaler("cuda")
    for real, cond in loader:
        with torch.autocast("cuda"):
            fake = gen(cond)
            g_loss = adversarial_loss(disc(fake), torch.ones(real.size(0), 1, device=real.device))
        opt_g.zero_grad(set_to_none=True)
        scaler_g.scale(g_loss).backward()
        scaler_g.unscale_(opt_g)
        clip_grad_norm_(gen.parameters(), max_norm)  # expect: GL301
        scaler_g.step(opt_g)
        scaler_g.update()

        with torch.autocast("cuda"):
            real_loss = adversarial_loss(disc(real), torch.ones(real.size(0), 1, device=real.device))
            fake_loss = adversarial_loss(disc(fake.detach()), torch.zeros(real.size(0), 1, device=real.device))
            d_loss = (real_loss + fake_loss) / 2
        opt_d.zero_grad(set_to_none=True)
        scaler_d.scale(d_loss).backward()
        scaler_d.unscale_(opt_d)
        clip_grad_norm_(disc.parameters(), max_norm)  # expect: GL301
        scaler_d.step(opt_d)
        scaler_d.update()
