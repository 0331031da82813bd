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


def train(task, batches, optimizer, device, world_size, total_steps, accumulate=4, max_norm=1.0):
    wrapped = task.to(device)
    if world_size > 1:
        wrapped = ForwardingDDP(task, device_ids=[device.index], find_unused_parameters=True)
    wrapped.train()
    for step in range(total_steps):
        for _ in range(accumulate):
            sync_context = contextlib.nullcontext() if _ == accumulate - 1 else getattr(wrapped, "no_sync", contextlib.nullcontext)()
            with sync_context:
                loss = wrapped("train", **next(batches))
                (loss / accumulate).backward()  # expect: GL401
        torch.nn.utils.clip_grad_norm_(wrapped.parameters(), max_norm)
        optimizer.step()
        optimizer.zero_grad()
