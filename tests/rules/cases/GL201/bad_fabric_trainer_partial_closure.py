from functools import partial

import lightning as L
import torch


class Trainer:
    def __init__(self, precision="bf16-mixed", devices=2, grad_accum_steps=4, max_steps=None):
        self.fabric = L.Fabric(accelerator="cuda", devices=devices, strategy="ddp", precision=precision)
        self.grad_accum_steps = grad_accum_steps
        self.global_step = 0
        self.max_steps = max_steps

    def training_step(self, model, batch, batch_idx):
        outputs = model.training_step(batch, batch_idx)
        loss = outputs if isinstance(outputs, torch.Tensor) else outputs["loss"]
        self.fabric.backward(loss)  # expect: GL201
        return loss

    def fit(self, model, loader, epochs=1):
        self.fabric.launch()
        optimizer = model.configure_optimizers()
        model, optimizer = self.fabric.setup(model, optimizer)
        loader = self.fabric.setup_dataloaders(loader)
        for _ in range(epochs):
            self.train_loop(model, optimizer, loader)

    def train_loop(self, model, optimizer, loader):
        for batch_idx, batch in enumerate(loader):
            should_step = self.global_step % self.grad_accum_steps == 0
            if should_step:
                # the closure runs the last micro-batch's forward and backward
                optimizer.step(partial(self.training_step, model=model, batch=batch, batch_idx=batch_idx))
                optimizer.zero_grad()
            else:
                self.training_step(model=model, batch=batch, batch_idx=batch_idx)
            self.global_step += int(should_step)
            if self.max_steps is not None and self.global_step >= self.max_steps:
                break
