"""A video-text aligner accumulates `backprop_freq` batches before each step and clips them
with a per-parameter helper written by hand: the helper clips, it does not divide by the
window, and the loss is never divided."""
import torch


def clip_gradients(model, clip_grad=3):
    for name, p in model.named_parameters():
        if p.grad is not None:
            param_norm = p.grad.data.norm(2)
            clip_coef = clip_grad / (param_norm + 1e-6)
            if clip_coef < 1:
                p.grad.data.mul_(clip_coef)


def train(loader, model, optimizer, grad_scaler, args):
    optimizer.zero_grad()
    for idx, batch in enumerate(loader):
        with torch.autocast("cuda"):
            loss = model(batch["video"], batch["text"])["loss"]
        grad_scaler.scale(loss / args.backprop_freq).backward()  # expect: GL201
        if idx % args.backprop_freq == 0 or idx + 1 == len(loader):  # expect: GL205
            grad_scaler.unscale_(optimizer)
            if args.clip_grad > 0:
                clip_gradients(model, clip_grad=args.clip_grad)
            grad_scaler.step(optimizer)
            grad_scaler.update()
            optimizer.zero_grad()
