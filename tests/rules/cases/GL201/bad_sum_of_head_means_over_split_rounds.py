import torch
import torch.nn.functional as F


def train_discriminator(D, G, loader, opt_d, batch_gpu=8, z_dim=512):
    """A multi-head discriminator: each round's loss is the sum of the heads' means, and one
    step follows the rounds without dividing by their number."""
    for real in loader:
        opt_d.zero_grad(set_to_none=True)
        real_rounds = real.split(batch_gpu)
        for real_round in real_rounds:
            fake_logits = D(G(torch.randn(real_round.shape[0], z_dim)).detach())
            real_logits = D(real_round)
            loss_fake = sum([F.softplus(l).mean() for l in fake_logits])
            loss_real = sum([F.softplus(-l).mean() for l in real_logits])
            (loss_fake + loss_real).backward()  # expect: GL201
        opt_d.step()
