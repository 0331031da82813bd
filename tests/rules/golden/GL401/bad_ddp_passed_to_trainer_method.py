import contextlib
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import GPT


class Trainer:
    def __init__(self, grad_accum=8, max_iters=10_000):
        self.grad_accum = grad_accum
        self.max_iters = max_iters

    def fit(self, model, optimizer, batches):
        for it in range(self.max_iters):
            for micro in range(self.grad_accum):
                x, y = next(batches)
                sync_context = contextlib.nullcontext() if micro == self.grad_accum - 1 else getattr(model, "no_sync", contextlib.nullcontext)()
                with sync_context:
                    loss = model(x, y) / self.grad_accum
                    loss.backward()  # expect: GL401
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)


def main(rank, world_size, batches):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    ddp_gpt = DDP(GPT().to(rank), device_ids=[rank])
    adamw = torch.optim.AdamW(ddp_gpt.parameters(), lr=6e-4)
    trainer = Trainer(grad_accum=8)
    trainer.fit(ddp_gpt, adamw, batches)
