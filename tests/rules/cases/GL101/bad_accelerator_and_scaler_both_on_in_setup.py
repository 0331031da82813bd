import os

import torch
from accelerate import Accelerator


class Experiment:
    """Torch AMP is on whenever fp16 is asked for, with or without the accelerator: with
    several GPUs and fp16 both step paths below run, the accelerator's clip after the step."""

    def __init__(self, model, optimizer, config):
        self.model, self.optimizer, self.config = model, optimizer, config
        self.accelerator = None
        self.use_torch_amp = False
        if len(os.environ.get("CUDA_VISIBLE_DEVICES", "0").split(",")) > 1:
            self.accelerator = Accelerator(mixed_precision=config.mixed_precision)
        if config.mixed_precision == "fp16":
            self.use_torch_amp = True
        self.scaler = torch.amp.GradScaler("cuda") if self.use_torch_amp else None

    def _backward(self, loss):
        if self.use_torch_amp:
            self.scaler.scale(loss).backward()
        elif self.accelerator is not None:
            self.accelerator.backward(loss)
        else:
            loss.backward()

    def _step(self):
        clipped = False
        if self.use_torch_amp:
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            clipped = True
        if self.accelerator:
            self.accelerator.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)  # expect: GL101
            self.optimizer.step()
            clipped = True
        if not clipped:
            self.optimizer.step()
        self.optimizer.zero_grad()

    def train(self, loader):
        for batch in loader:
            loss = self.model(**batch).loss
            self._backward(loss)
            self._step()
