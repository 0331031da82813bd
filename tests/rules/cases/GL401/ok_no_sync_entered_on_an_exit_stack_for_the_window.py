"""The ExitStack enters `no_sync()` for every micro-batch but the window's last, around the
forward and the backward: gradients all-reduce once per step."""
from contextlib import ExitStack

import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, rank, loader, optimizer, accum_step=8):
    ddp_model = DDP(model.to(rank), device_ids=[rank])
    for step, (features, target) in enumerate(loader):
        last = (step + 1) % accum_step == 0 or step + 1 == len(loader)
        with ExitStack() as stack:
            if not last:
                stack.enter_context(ddp_model.no_sync())
            loss = torch.nn.functional.mse_loss(ddp_model(features), target) / accum_step
            loss.backward()
        if last:
            optimizer.step()
            optimizer.zero_grad()
