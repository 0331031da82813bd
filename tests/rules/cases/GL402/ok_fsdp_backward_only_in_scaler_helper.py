import torch
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp.sharded_grad_scaler import ShardedGradScaler


class ShardedLossScaler:
    """Called once per micro-batch; FSDP reads no_sync in its backward hooks, so wrapping the
    backward alone defers the reduce-scatter."""

    def __init__(self, enabled: bool):
        self.scaler = ShardedGradScaler(enabled=enabled)

    def __call__(self, loss, optimizer, model: FSDP, max_norm=None, sync=True):
        if sync:
            self.scaler.scale(loss).backward()
            self.scaler.unscale_(optimizer)
            norm = model.clip_grad_norm_(max_norm or float("inf"))
            self.scaler.step(optimizer)
            self.scaler.update()
            return norm
        with model.no_sync():
            self.scaler.scale(loss).backward()
        return None
