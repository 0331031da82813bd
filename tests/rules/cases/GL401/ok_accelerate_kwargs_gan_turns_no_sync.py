from contextlib import nullcontext

import torch
from accelerate import Accelerator


class VQGANTrainer:
    """Non-final micro-batches of both turns skip the all-reduce."""

    def __init__(self, vae, loader, lr=3e-4, grad_accum_every=4, accelerate_kwargs: dict = dict()):
        self.accelerator = Accelerator(**accelerate_kwargs)
        self.grad_accum_every = grad_accum_every
        optim = torch.optim.AdamW(vae.vae_parameters(), lr=lr)
        discr_optim = torch.optim.AdamW(vae.discr.parameters(), lr=lr)
        (self.vae, self.optim, self.discr_optim, self.dl) = self.accelerator.prepare(vae, optim, discr_optim, loader)
        self.dl_iter = iter(self.dl)

    def train_step(self):
        self.vae.train()
        for i in range(self.grad_accum_every):
            video = next(self.dl_iter)
            context = self.accelerator.no_sync(self.vae) if i < self.grad_accum_every - 1 else nullcontext()
            with context, self.accelerator.autocast():
                loss = self.vae(video, return_loss=True)
                self.accelerator.backward(loss / self.grad_accum_every)
        self.optim.step()
        self.optim.zero_grad()

        self.discr_optim.zero_grad()
        for i in range(self.grad_accum_every):
            video = next(self.dl_iter)
            context = self.accelerator.no_sync(self.vae) if i < self.grad_accum_every - 1 else nullcontext()
            with context:
                discr_loss = self.vae(video, return_discr_loss=True)
                self.accelerator.backward(discr_loss / self.grad_accum_every)
        self.discr_optim.step()

    def train(self, num_steps):
        for _ in range(num_steps):
            self.train_step()
