import contextlib

import torch
from torch.nn.parallel import DistributedDataParallel


class ForwardingDDP(DistributedDataParallel):
    """Lets `task.compute_metrics(...)` reach the wrapped module."""

    def __getattr__(self, name):
        try:
            return super().__getattr__(name)
        except AttributeError:
            return getattr(self.module, name)


def train(task, loader, optimizer, device, world_size, accumulate=4, max_norm=1.0):
    wrapped = task.to(device)
    if world_size > 1:
        wrapped = ForwardingDDP(task, device_ids=[device.index], find_unused_parameters=True)
    for index, batch in enumerate(loader):
        wrapped.train()
        boundary = (index + 1) % accumulate == 0 or index + 1 == len(loader)
        with contextlib.nullcontext() if boundary or world_size == 1 else wrapped.no_sync():
            loss = wrapped("train", **batch)
            (loss / accumulate).backward()
        if not boundary:
            continue
        torch.nn.utils.clip_grad_norm_(wrapped.parameters(), max_norm)
        optimizer.step()
        optimizer.zero_grad()
