import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, loader, optimizer, args):
    model = DDP(model)
    for step, batch in enumerate(loader):
        loss = model(*batch)
        loss = loss / args.gradient_accumulation_steps
        # the wrapper exposes its own switch instead of no_sync()
        model.disable_allreduce()
        if (step + 1) % args.gradient_accumulation_steps == 0:
            model.enable_allreduce()
        loss.backward()
        if (step + 1) % args.gradient_accumulation_steps == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
