import torch
import torch.nn.functional as F

from models import SwinTransformer
from data import build_imagenet_loader


class ApexScalerCompat:
    """Backward with a scaled loss, optional clipping, and the optimizer step."""

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None):
        self._scaler.scale(loss).backward()
        if clip_grad is not None:
            torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
        self._scaler.step(optimizer)
        self._scaler.update()


def train_one_epoch(model, loader, optimizer, loss_scaler, lr_scheduler, clip_grad=5.0):
    model.train()
    for idx, (samples, targets) in enumerate(loader):
        samples, targets = samples.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(samples), targets, label_smoothing=0.1)
        optimizer.zero_grad()
        loss_scaler(loss, optimizer, clip_grad=clip_grad, parameters=model.parameters())  # expect: GL301
        lr_scheduler.step()


def main(cfg):
    model = SwinTransformer(img_size=224, embed_dim=96, depths=[2, 2, 6, 2]).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.05)
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    loss_scaler = ApexScalerCompat()
    loader = build_imagenet_loader(cfg)
    for epoch in range(cfg.epochs):
        train_one_epoch(model, loader, optimizer, loss_scaler, lr_scheduler)
