"""A CycleGAN-style trainer: the generator accumulates over `accumulation_steps` batches (its
step waits for the window's last batch) while the discriminator steps on every batch; the
generator's loss is not divided by the window."""
import torch


class Trainer:
    def __init__(self, opt, model):
        self.opt = opt
        self.model = model
        self.scaler = torch.amp.GradScaler("cuda", enabled=opt.amp)

    def train_epoch(self, loader):
        accumulation_steps = self.opt.accumulation_steps
        for i, data in enumerate(loader):
            self.model.set_input(data)
            with torch.autocast("cuda", enabled=self.opt.amp):
                self.model.forward()
                g_loss = self.model.criterion_gan(self.model.fake_b) + self.model.criterion_cycle(self.model.rec_a)
                g_loss = g_loss / accumulation_steps
            self.scaler.scale(g_loss).backward()
            update_generator = (i + 1) % accumulation_steps == 0 or i + 1 == len(loader)
            if update_generator:
                self.scaler.step(self.model.optimizer_g)
                self.model.optimizer_g.zero_grad(set_to_none=True)

            with torch.autocast("cuda", enabled=self.opt.amp):
                d_loss = self.model.criterion_gan(self.model.net_d(self.model.fake_b.detach()))
            self.scaler.scale(d_loss).backward()
            self.scaler.step(self.model.optimizer_d)
            self.model.optimizer_d.zero_grad(set_to_none=True)
            self.scaler.update()
