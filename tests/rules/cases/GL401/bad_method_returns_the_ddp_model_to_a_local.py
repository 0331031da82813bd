"""A class trainer whose `set_up_dist` builds the DDP model and returns it; each training method
binds its own `model` from that call and accumulates through it without `no_sync()` (the name
`model` is wrapped only inside `set_up_dist`, yet every caller's `model` is what it returns)."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


class LOTClassTrainer:
    def __init__(self, args, model):
        self.args = args
        self.model = model
        self.accum_steps = args.accum_steps

    def set_up_dist(self, rank):
        dist.init_process_group(backend="nccl", init_method="env://", world_size=self.args.world_size, rank=rank)
        model = self.model.to(rank)
        model = DDP(model, device_ids=[rank], find_unused_parameters=True)
        return model

    def mcp_dist(self, rank, loader, epochs):
        model = self.set_up_dist(rank)
        optimizer = torch.optim.Adam(model.parameters(), lr=2e-5)
        for epoch in range(epochs):
            model.train()
            for j, batch in enumerate(loader):
                loss = model(**batch) / self.accum_steps
                loss.backward()  # expect: GL401
                if (j + 1) % self.accum_steps == 0 or j + 1 == len(loader):
                    optimizer.step()
                    model.zero_grad()
