from functools import partial

import torch
from torch import nn


def build_gradient_clipper(cfg):
    """None, or a clip with the configured threshold."""
    clip_grad_fun = None
    if cfg["clip_grad_val"] is not None:
        clip_grad_fun = partial(nn.utils.clip_grad_value_, clip_value=cfg["clip_grad_val"])
    elif cfg["clip_grad_norm"] is not None:
        clip_grad_fun = partial(nn.utils.clip_grad_norm_, max_norm=cfg["clip_grad_norm"])
    return clip_grad_fun


class TrainManager:
    def __init__(self, model, optimizer, cfg):
        self.model = model
        self.optimizer = optimizer
        self.clip_grad_fun = build_gradient_clipper(cfg)
        self.scaler = torch.amp.GradScaler("cuda")

    def train_epoch(self, loader):
        for batch in loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.model(batch)
            self.scaler.scale(loss).backward()
            if self.clip_grad_fun is not None:
                self.clip_grad_fun(parameters=self.model.parameters())  # expect: GL301
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
