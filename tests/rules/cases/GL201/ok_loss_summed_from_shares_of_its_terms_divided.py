import torch
import torch.nn.functional as F


def train_discriminator(discriminators, generator, loader, optimizer, scaler, grad_accm):
    """The hinge loss adds each multi-scale logit's share (`/ len(logits)`), and the sum is
    divided by the window it accumulates over."""
    for batch, (real, cond) in enumerate(loader):
        with torch.no_grad():
            fake = generator(cond.cuda())
        with torch.autocast("cuda", dtype=torch.float16):
            logits_fake = discriminators(fake)
            logits_real = discriminators(real.cuda())
            loss_d = 0
            for logit in logits_fake:
                loss_d += F.relu(0.5 + logit).mean() / len(logits_fake)
            for logit in logits_real:
                loss_d += F.relu(0.5 - logit).mean() / len(logits_real)
        scaler.scale(loss_d / grad_accm).backward()
        if (batch + 1) % grad_accm == 0 or batch + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
