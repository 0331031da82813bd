"""A chemistry language model's pretraining: the window ends at a token budget; when the
option asks for it, a window whose gradients are not all finite is thrown away with zero_grad
on that micro-batch only. The clear is the recovery, not a clear on every micro-batch."""
import numpy as np
import torch


def train(model, loader, optimizer, scheduler, args):
    accum_weight = 0.0
    for step, batch in enumerate(loader):
        weight = batch["weight"].cuda()
        loss = (model(batch["tokens"].cuda()) * weight).sum() * args.loss_scale
        loss.backward()
        accum_weight += weight.sum().item()
        if args.reset_nan_grad:
            grad_is_finite = np.all([torch.all(torch.isfinite(p.grad)).item() for p in model.parameters() if p.grad is not None])
            if not grad_is_finite:
                optimizer.zero_grad()
                accum_weight = 0.0
        if accum_weight >= args.weight_per_opt:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
            accum_weight = 0.0
