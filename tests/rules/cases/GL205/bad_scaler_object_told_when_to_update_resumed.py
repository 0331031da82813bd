import math
import sys

import torch


class GradScalerWithNorm:
    """Backward on every call; clip, step and update only when told the window is complete."""

    def __init__(self, precision):
        self._scaler = torch.amp.GradScaler("cuda", enabled=precision == "fp16")

    def __call__(self, loss, optimizer, model, clip_grad=None, update_grad=True):
        if update_grad:
            self._scaler.scale(loss).backward()
            self._scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad or 1e8)
            self._scaler.step(optimizer)
            self._scaler.update()
        else:
            with model.no_sync():
                self._scaler.scale(loss).backward()
            norm = None
        return norm


def train_one_epoch(model, data_loader, optimizer, epoch, start_iter, loss_scaler, args):
    model.train(True)
    accum_iter = args.accum_iter
    model.zero_grad(set_to_none=True)
    for data_iter_step, (examples, labels) in enumerate(data_loader, start=start_iter):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(examples, labels)
        if not math.isfinite(loss.item()):
            sys.exit(1)
        loss /= accum_iter
        update_grad = (data_iter_step + 1) % accum_iter == 0
        grad_norm = loss_scaler(loss, optimizer, model, clip_grad=args.clip_grad, update_grad=update_grad)  # expect: GL205
        if update_grad:
            model.zero_grad(set_to_none=True)
    return grad_norm


def main(args, model, optimizer, loader):
    loss_scaler = GradScalerWithNorm(args.precision)
    for epoch in range(args.epochs):
        train_one_epoch(model, loader, optimizer, epoch, args.start_iter if epoch == args.start_epoch else 0, loss_scaler, args)
        args.start_iter = 0
