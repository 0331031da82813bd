import torch
from accelerate import Accelerator

from diffusers_like import UNet2DModel, DDPMScheduler


class DiffusionTrainer:
    def __init__(self, cfg):
        self.accelerator = Accelerator(gradient_accumulation_steps=cfg.grad_accum, mixed_precision="fp16")
        self.model = UNet2DModel(sample_size=cfg.resolution)
        self.noise_scheduler = DDPMScheduler(num_train_timesteps=1000)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.lr)
        self.model, self.optimizer = self.accelerator.prepare(self.model, self.optimizer)

    def _loss(self, clean):
        noise = torch.randn_like(clean)
        t = torch.randint(0, 1000, (clean.shape[0],), device=clean.device)
        noisy = self.noise_scheduler.add_noise(clean, noise, t)
        return torch.nn.functional.mse_loss(self.model(noisy, t).sample, noise)

    def _backward(self, loss):
        self.accelerator.backward(loss)
        if self.accelerator.sync_gradients:
            self.accelerator.clip_grad_norm_(self.model.parameters(), 1.0)

    def train_epoch(self, loader):
        for batch in loader:
            with self.accelerator.accumulate(self.model):
                loss = self._loss(batch["images"])
                self._backward(loss)
                self.optimizer.step()
                self.optimizer.zero_grad()
