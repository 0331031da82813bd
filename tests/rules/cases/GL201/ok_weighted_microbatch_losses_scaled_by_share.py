import torch

from diffusion.gaussian import GaussianDiffusion
from diffusion.resample import UniformSampler
from diffusion.unet import UNetModel


class DiffusionTrainLoop:
    def __init__(self, model: UNetModel, diffusion: GaussianDiffusion, data, batch_size, microbatch, lr, use_fp16=False):
        self.model = model
        self.diffusion = diffusion
        self.data = data
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.use_fp16 = use_fp16
        self.lg_loss_scale = 20.0
        self.sampler = UniformSampler(diffusion)
        self.params = list(model.parameters())
        self.opt = torch.optim.AdamW(self.params, lr=lr)

    def forward_backward(self, batch):
        for p in self.params:
            p.grad = None
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch].cuda()
            t, weights = self.sampler.sample(micro.shape[0], micro.device)
            losses = self.diffusion.training_losses(self.model, micro, t)
            loss = (losses["loss"] * weights).mean() * micro.shape[0] / batch.shape[0]
            if self.use_fp16:
                (loss * 2 ** self.lg_loss_scale).backward()
            else:
                loss.backward()

    def optimize(self):
        if self.use_fp16:
            for p in self.params:
                p.grad.mul_(1.0 / 2 ** self.lg_loss_scale)
        self.opt.step()

    def run_loop(self, steps):
        for _ in range(steps):
            self.forward_backward(next(self.data))
            self.optimize()
