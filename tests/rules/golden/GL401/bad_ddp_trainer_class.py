import contextlib
import torch
import torch.distributed as dist
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
            sync_context = contextlib.nullcontext() if (step + 1) % self.grad_accum_steps == 0 or step + 1 == len(self.loader) else self.model.no_sync()
            with sync_context:
                loss = self.criterion(self.model(x), y) / self.grad_accum_steps
                loss.backward()  # expect: GL401
            if (step + 1) % self.grad_accum_steps == 0 or step + 1 == len(self.loader):  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
        if dist.get_rank() == 0:
            print(f"epoch {epoch} finished, last loss {loss.item():.4f}")
