from accelerate import Accelerator


class Trainer:
    def __init__(self, diffusion_model, optimizer, loader, fp16=True, gradient_accumulate_every=2):
        self.accelerator = Accelerator(split_batches=True, mixed_precision="fp16" if fp16 else "no")
        self.model, self.opt = self.accelerator.prepare(diffusion_model, optimizer)
        self.dl = iter(self.accelerator.prepare(loader))
        self.gradient_accumulate_every = gradient_accumulate_every

    def train(self, num_steps):
        accelerator = self.accelerator
        for _ in range(num_steps):
            for _ in range(self.gradient_accumulate_every):
                with self.accelerator.autocast():
                    loss = self.model(next(self.dl)) / self.gradient_accumulate_every
                self.accelerator.backward(loss)  # expect: GL401
            accelerator.clip_grad_norm_(self.model.parameters(), 1.0)
            self.opt.step()
            self.opt.zero_grad()
