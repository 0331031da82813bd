import contextlib

import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class DistributedTrainer:
    def __init__(self, model, loader, local_rank, grad_accum_steps=4, lr=1e-3):
        self.local_rank = local_rank
        self.model = DDP(model.to(local_rank), device_ids=[local_rank])
        self.loader = loader
        self.grad_accum_steps = grad_accum_steps
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()

    def train_epoch(self, epoch):
        self.model.train()
        self.loader.sampler.set_epoch(epoch)
        for step, (x, y) in enumerate(self.loader):
            x, y = x.to(self.local_rank), y.to(self.local_rank)
            boundary = (step + 1) % self.grad_accum_steps == 0
            with contextlib.nullcontext() if boundary else self.model.no_sync():
                loss = self.criterion(self.model(x), y) / self.grad_accum_steps
                loss.backward()
            if boundary:  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
