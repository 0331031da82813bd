"""A trainer base class with its own `zero_grad` and `clip_gradients`: the clear waits for the
window's first micro-batch and the clip unscales first, inside the methods the step calls."""
import torch
from torch import nn


class BaseTrainer:
    def __init__(self, model, opt, grad_accum, grad_clip=1.0):
        self.model = model
        self.opt = opt
        self.grad_accum = grad_accum
        self.grad_clip = grad_clip
        self.scaler = torch.amp.GradScaler("cuda")
        self.micro_step = 0

    def zero_grad(self):
        if self.micro_step % self.grad_accum == 0:
            self.opt.zero_grad(set_to_none=True)

    def backwards(self, loss):
        self.scaler.scale(loss / self.grad_accum).backward()

    def clip_gradients(self):
        if self.grad_clip > 0:
            self.scaler.unscale_(self.opt)
            nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)

    def optimizer_step(self):
        self.micro_step += 1
        if self.micro_step % self.grad_accum == 0:
            self.clip_gradients()
            self.scaler.step(self.opt)
            self.scaler.update()


class ClassifierTrainer(BaseTrainer):
    def train_step(self, images, labels):
        self.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(self.model(images), labels)
        self.backwards(loss)
        self.optimizer_step()
        return loss.item()

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for images, labels in loader:
                self.train_step(images.cuda(), labels.cuda())
