import math
import sys

import torch
import torch.nn as nn

from timm.data import Mixup
from models import vit_base_patch16


class LossScaler:
    """Scales the loss, steps the optimizer when asked, and reports the gradient norm."""

    state_dict_key = "amp_scaler"

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, create_graph=False, update_grad=True):
        self._scaler.scale(loss).backward(create_graph=create_graph)
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                norm = torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            else:
                norm = None
            self._scaler.step(optimizer)
            self._scaler.update()
        else:
            norm = None
        return norm

    def state_dict(self):
        return self._scaler.state_dict()


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, loss_scaler, accum_iter, max_norm=None, mixup_fn=None):
    model.train(True)
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        if mixup_fn is not None:
            samples, targets = mixup_fn(samples, targets)
        with torch.autocast("cuda"):
            outputs = model(samples)
            loss = criterion(outputs, targets)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        loss_scaler(loss, optimizer, clip_grad=max_norm,  # expect: GL201, GL205
                    parameters=model.parameters(), create_graph=False,
                    update_grad=(data_iter_step + 1) % accum_iter == 0)
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.zero_grad()
        torch.cuda.synchronize()


def main(args):
    device = torch.device(args.device)
    model = vit_base_patch16(num_classes=args.nb_classes, drop_path_rate=args.drop_path).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    mixup_fn = Mixup(mixup_alpha=0.8, cutmix_alpha=1.0, label_smoothing=0.1, num_classes=args.nb_classes)
    loss_scaler = LossScaler()
    criterion = nn.CrossEntropyLoss()
    for epoch in range(args.epochs):
        train_one_epoch(model, criterion, args.loader, optimizer, device, epoch, loss_scaler,
                        args.accum_iter, max_norm=args.clip_grad, mixup_fn=mixup_fn)
