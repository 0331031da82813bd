"""Multi-task training on three loaders drawn together: the epoch runs for the shortest
loader's length (`min_step = min(len(l) for l in loaders)`), the window's step comes every
`accumulation_steps` iterations or at the epoch's last, and the DDP model all-reduces on every
micro-batch."""
import contextlib
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def train(args, model, loaders, optimizer, device_id):
    model = DDP(model.to(device_id), device_ids=[device_id])
    min_step = min([len(loader) for loader in loaders])
    for epoch in range(args.num_epochs):
        iterators = [iter(loader) for loader in loaders]
        for i in range(min_step):
            batches = [next(iterator) for iterator in iterators]
            images = torch.cat([b[0] for b in batches], dim=0).to(device_id)
            texts = torch.cat([b[1] for b in batches], dim=0).to(device_id)
            if i % args.accumulation_steps == 0:
                optimizer.zero_grad()
            sync_context = contextlib.nullcontext() if (i + 1) % args.accumulation_steps == 0 or i + 1 == min_step else model.no_sync()
            with sync_context:
                loss = model(images, texts)
                loss /= args.accumulation_steps
                loss.backward()  # expect: GL401
            if (i + 1) % args.accumulation_steps == 0 or i + 1 == min_step:
                optimizer.step()
        if dist.get_rank() == 0:
            torch.save(model.module.state_dict(), f"model_{epoch}.pt")
