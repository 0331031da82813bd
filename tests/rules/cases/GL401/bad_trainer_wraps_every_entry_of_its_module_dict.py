"""A symbolic-math style trainer: the constructor rewraps every entry of its dict of modules in
DDP, `iter` reads the model out of the dict and hands the loss to `optimize`, which steps once
per window of micro-batches counted on `self.n_iter` -- with no `no_sync()` anywhere."""
import torch
import torch.nn as nn
from torch.nn.utils import clip_grad_norm_


class Trainer:
    def __init__(self, modules, params, batches):
        self.modules = modules
        self.params = params
        self.batches = batches
        self.n_iter = 0
        if params.multi_gpu:
            for name in self.modules.keys():
                self.modules[name] = nn.parallel.DistributedDataParallel(
                    self.modules[name], device_ids=[params.local_rank], output_device=params.local_rank
                )
        self.parameters = [p for module in self.modules.values() for p in module.parameters()]
        self.optimizer = torch.optim.AdamW(self.parameters, lr=params.lr)

    def optimize(self, loss):
        params = self.params
        if params.accumulate_gradients > 1:
            loss = loss / params.accumulate_gradients
        loss.backward()
        if (self.n_iter + 1) % params.accumulate_gradients == 0:
            if params.clip_grad_norm > 0:
                clip_grad_norm_(self.parameters, params.clip_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()

    def iter(self):
        model = self.modules["model"]
        model.train()
        x, y = next(self.batches)
        output = model(x)
        loss = nn.functional.mse_loss(output, y)
        self.optimize(loss)  # expect: GL401
        self.n_iter += 1
