"""The same trainer, with the window's earlier micro-batches run under the model's `no_sync()`
(the model may be bare on one process: the lookup falls back to a null context)."""
import contextlib

import torch
import torch.nn as nn


class Trainer:
    def __init__(self, modules, params, batches):
        self.modules = modules
        self.params = params
        self.batches = batches
        self.n_iter = 0
        if params.multi_gpu:
            for name, module in self.modules.items():
                self.modules[name] = nn.parallel.DistributedDataParallel(module, device_ids=[params.local_rank])
        self.parameters = [p for module in self.modules.values() for p in module.parameters()]
        self.optimizer = torch.optim.AdamW(self.parameters, lr=params.lr)

    def optimize(self, loss):
        params = self.params
        loss = loss / params.accumulate_gradients
        loss.backward()
        if (self.n_iter + 1) % params.accumulate_gradients == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()

    def iter(self):
        model = self.modules["model"]
        last = (self.n_iter + 1) % self.params.accumulate_gradients == 0
        context = contextlib.nullcontext() if last else getattr(model, "no_sync", contextlib.nullcontext)()
        with context:
            x, y = next(self.batches)
            loss = nn.functional.mse_loss(model(x), y)
            self.optimize(loss)
        self.n_iter += 1
