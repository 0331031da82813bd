"""A WGAN for patient trajectories: both schedulers step as each epoch begins, before the critic's
inner loop and the generator's update of the epoch's first batch."""
import torch
from tqdm import tqdm

from trajgan.data import train_loader
from trajgan.models import Critic, Generator


def train(epochs=100, crit_repeats=5, clip_value=0.01, device="cuda"):
    gen, disc = Generator().to(device), Critic().to(device)
    gen_opt = torch.optim.Adam(gen.parameters(), lr=1e-4, betas=(0.5, 0.9))
    disc_opt = torch.optim.SGD(disc.parameters(), lr=5e-5)
    sched_g = torch.optim.lr_scheduler.StepLR(gen_opt, step_size=20, gamma=0.5)
    sched_d = torch.optim.lr_scheduler.StepLR(disc_opt, step_size=20, gamma=0.5)
    for epoch in range(epochs):
        for real in tqdm(train_loader()):
            real = real.to(device)
            for _ in range(crit_repeats):
                disc_opt.zero_grad()
                fake = gen(torch.randn(real.size(0), 128, device=device))
                disc_loss = disc(fake.detach()).mean() - disc(real).mean()
                disc_loss.backward(retain_graph=True)
                disc_opt.step()
                for p in disc.parameters():
                    p.data.clamp_(-clip_value, clip_value)
            gen_opt.zero_grad()
            gen_loss = -disc(gen(torch.randn(real.size(0), 128, device=device))).mean()
            gen_loss.backward()
            torch.nn.utils.clip_grad_norm_(gen.parameters(), 1.0)
            gen_opt.step()
        sched_d.step()  # expect: GL106
        sched_g.step()  # expect: GL106
