"""Two models backpropagate first, then each optimizer clips and steps in turn: the clip after
the first step belongs to the second step, which has not run yet."""
import torch


def train(generator, discriminator, loader, opt_g, opt_d, max_norm=0.5):
    for real in loader:
        fake = generator(torch.randn(real.size(0), 64))
        loss_d = discriminator(real).mean() - discriminator(fake.detach()).mean()
        loss_g = -discriminator(fake).mean()
        loss_d.backward(retain_graph=True)
        loss_g.backward()
        torch.nn.utils.clip_grad_norm_(discriminator.parameters(), max_norm)
        opt_d.step()
        torch.nn.utils.clip_grad_norm_(generator.parameters(), max_norm)
        opt_g.step()
        opt_d.zero_grad()
        opt_g.zero_grad()
