"""A pix2pix-style trainer: the generator accumulates over `accum` batches and clips on every
one of them, while the discriminator steps every batch."""
import torch
from torch.nn.utils import clip_grad_norm_


def train_epoch(gen, disc, opt_g, opt_d, loader, gan_loss, l1, accum, max_norm=5.0):
    for i, (src, tgt) in enumerate(loader):
        fake = gen(src)
        g_loss = (gan_loss(disc(src, fake), True) + 100 * l1(fake, tgt)) / accum
        g_loss.backward()
        if (i + 1) % accum == 0 or i + 1 == len(loader):
            clip_grad_norm_(gen.parameters(), max_norm)  # expect: GL203
            opt_g.step()
            opt_g.zero_grad()

        d_loss = 0.5 * (gan_loss(disc(src, tgt), True) + gan_loss(disc(src, fake.detach()), False))
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
