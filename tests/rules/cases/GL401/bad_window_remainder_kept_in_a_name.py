"""The window's remainder is kept in a name (`pending_steps = (batch_idx + 1) % acc_steps`) and
the step waits for it to be 0; the epoch's leftover micro-batches are flushed after the loop.
The model is DDP when distributed, and every micro-batch all-reduces."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class TrainModule:
    def __init__(self, model, optimizer, scheduler, train_loader, config, local_rank):
        self.model = model.to(local_rank)
        if dist.is_available() and dist.is_initialized():
            self.model = DDP(self.model, device_ids=[local_rank])
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.config = config

    def train(self):
        acc_steps = self.config.accumulate_grad_batches
        for epoch in range(self.config.epochs):
            pending_steps = 0
            for batch_idx, batch in enumerate(self.train_loader):
                outputs = self.model(**batch)
                loss = outputs["loss"] / acc_steps
                loss.backward()  # expect: GL401
                pending_steps = (batch_idx + 1) % acc_steps
                if pending_steps == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad(set_to_none=True)
                    self.scheduler.step()
            if pending_steps != 0:
                self.optimizer.step()
                self.optimizer.zero_grad(set_to_none=True)
                self.scheduler.step()
