"""The memory selector is wrapped in DDP by `main`, but the joint phase runs the wrapped module
(`selector.module if isinstance(selector, DDP) else selector`): no backward of it all-reduces,
and the gradients are averaged by hand once per window."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def train_joint(selector, injector, loader, optimizer, accum, world_size):
    selector_module = selector.module if isinstance(selector, DDP) else selector
    params = [p for p in selector_module.parameters() if p.requires_grad]
    for step_i, (query, memory, target) in enumerate(loader):
        scores = selector_module(query, memory)
        loss = injector(scores, target) / accum
        loss.backward()
        if (step_i + 1) % accum == 0 or step_i + 1 == len(loader):
            if world_size > 1:
                for p in params:
                    if p.grad is not None:
                        dist.all_reduce(p.grad, op=dist.ReduceOp.AVG)
            optimizer.step()
            optimizer.zero_grad()


def main(selector, injector, loader, rank, world_size, accum=4):
    selector = DDP(selector.to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(selector.parameters(), lr=1e-4)
    train_joint(selector, injector, loader, optimizer, accum, world_size)
