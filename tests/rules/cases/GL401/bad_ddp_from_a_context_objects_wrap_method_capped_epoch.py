"""A continual-segmentation trainer: a distributed context object, made by a factory, wraps the
model in DDP when enabled and carries the accumulation count; the epoch is capped at
`max_steps_per_epoch` batches and steps at each window's end or at the cap. No `no_sync()`."""
import torch
from torch.nn.parallel import DistributedDataParallel


class DistributedContext:
    def __init__(self, enabled=False, grad_accum_steps=1):
        self.enabled = enabled
        self.grad_accum_steps = max(grad_accum_steps, 1)
        self.local_rank = 0

    def wrap_model(self, model):
        if not self.enabled:
            return model
        return DistributedDataParallel(model.to(f"cuda:{self.local_rank}"), device_ids=[self.local_rank])


def setup_ddp(cfg):
    dist_cfg = cfg.get("runtime", {}).get("distributed", {})
    return DistributedContext(enabled=bool(dist_cfg.get("enabled", False)), grad_accum_steps=int(dist_cfg.get("grad_accum_steps", 1)))


def train(model, method, train_loader, cfg, dist_ctx=None):
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["train"]["lr"])
    scaler = torch.amp.GradScaler("cuda")
    grad_accum_steps = dist_ctx.grad_accum_steps if dist_ctx else 1
    max_steps = cfg["train"].get("max_steps_per_epoch", 100)
    for epoch in range(cfg["train"]["epochs"]):
        for i, batch in enumerate(train_loader):
            if i >= max_steps:
                break
            with torch.autocast("cuda", dtype=torch.float16):
                loss = method.training_loss(model, batch)
            if grad_accum_steps > 1:
                loss = loss / grad_accum_steps
            scaler.scale(loss).backward()  # expect: GL401
            if (i + 1) % grad_accum_steps == 0 or (i + 1) == max_steps:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
    return model


def main(cfg, build_model, method, train_loader):
    dist_ctx = setup_ddp(cfg)
    model = dist_ctx.wrap_model(build_model(cfg))
    return train(model, method, train_loader, cfg, dist_ctx=dist_ctx)
