"""The training function wraps its models through a closure of its own, which returns DDP when
launched by torchrun: every micro-batch's backward all-reduces though the step waits."""
import os

import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def run_training(cfg, model, loader, optimizer, accum_steps):
    is_ddp = "LOCAL_RANK" in os.environ
    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    model_without_ddp = model

    def _ddp_wrap(m):
        nonlocal model_without_ddp
        model_without_ddp = m
        if is_ddp:
            wrapped = DDP(m, device_ids=[local_rank], find_unused_parameters=cfg.find_unused)
            model_without_ddp = wrapped.module
            return wrapped
        return m

    model = _ddp_wrap(model.cuda(local_rank))
    for epoch in range(cfg.epochs):
        for batch_idx, (x, y) in enumerate(loader):
            loss = torch.nn.functional.mse_loss(model(x.cuda()), y.cuda()) / accum_steps
            loss.backward()  # expect: GL401
            if (batch_idx + 1) % accum_steps == 0 or (batch_idx + 1) == len(loader):
                optimizer.step()
                optimizer.zero_grad(set_to_none=True)
    return model_without_ddp
