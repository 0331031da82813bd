"""A trainer whose `_backward` leaves early on the micro-batches that do not end the window,
the test nested under `if accumulating:`; the model is DDP and every micro-batch syncs."""

import torch
from torch.nn.parallel import DistributedDataParallel


class ForcesTrainer:
    def __init__(self, model, config, local_rank):
        self.model = DistributedDataParallel(model.to(local_rank), device_ids=[local_rank])
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config["lr"])
        self.grad_accumulation_steps = config.get("grad_accumulation_steps", 1)
        self.clip_grad_norm = config.get("clip_grad_norm")
        self.step = 0

    def _backward(self, loss):
        if self.grad_accumulation_steps == 1:
            self.optimizer.zero_grad()
        loss.backward()
        if self.grad_accumulation_steps != 1:
            if self.step % self.grad_accumulation_steps != 0:
                return
        if self.clip_grad_norm:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=self.clip_grad_norm)
        self.optimizer.step()
        if self.grad_accumulation_steps != 1:
            self.optimizer.zero_grad()

    def train(self, loader, epochs):
        self.optimizer.zero_grad()
        for epoch in range(epochs):
            for batch in loader:
                self.step += 1
                out = self.model(batch["pos"], batch["atomic_numbers"])
                loss = torch.nn.functional.l1_loss(out, batch["y"]) / self.grad_accumulation_steps
                self._backward(loss)  # expect: GL401
