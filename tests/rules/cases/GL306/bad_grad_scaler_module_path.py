import torch


def make_scaler(cfg):
    # the class through the package's own module: the same deprecated GradScaler
    return torch.cuda.amp.grad_scaler.GradScaler(growth_interval=100, enabled=cfg.fp16)  # expect: GL306
