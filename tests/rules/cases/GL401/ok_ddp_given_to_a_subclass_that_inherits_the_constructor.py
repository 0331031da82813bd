"""A small-LM trainer: the base class's constructor moves the model it is given to the device,
the causal-LM subclass hands every argument on to it, and the script builds the subclass with
its DDP model; every micro-batch but the last runs under `no_sync()`."""
import contextlib

import torch
from torch.nn.parallel import DistributedDataParallel


class BaseTrainer:
    def __init__(self, model, optimizer, train_loader, device="cuda", grad_accum_steps=1):
        self.model = model.to(device)
        self.optimizer = optimizer
        self.batches = iter(train_loader)
        self.grad_accum_steps = grad_accum_steps
        self.scaler = torch.amp.GradScaler("cuda")
        self.autocast = torch.autocast("cuda", dtype=torch.bfloat16)

    def backward(self, loss):
        self.scaler.scale(loss / self.grad_accum_steps).backward()

    def optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad(set_to_none=True)


class CausalTrainer(BaseTrainer):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.loss_fn = torch.nn.CrossEntropyLoss(ignore_index=-100)

    def train_step(self):
        for micro_step in range(self.grad_accum_steps):
            batch = next(self.batches)
            last = micro_step == self.grad_accum_steps - 1
            with contextlib.nullcontext() if last else self.model.no_sync(), self.autocast:
                logits = self.model(batch["input_ids"].cuda())
                loss = self.loss_fn(logits.flatten(0, 1), batch["labels"].cuda().flatten())
                self.backward(loss)
        self.optimizer_step()


def main(cfg, model, train_loader, local_rank):
    model = DistributedDataParallel(model.cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    trainer = CausalTrainer(model, optimizer, train_loader, grad_accum_steps=cfg.grad_accum_steps)
    for _ in range(cfg.max_iterations):
        trainer.train_step()
