"""A self-supervised trainer clips each parameter's gradient to a norm with a helper written by
hand (`clip_coef = clip / (norm + 1e-6)`, then `p.grad.data.mul_(clip_coef)`), right after the
scaled backward: the norms it measures are multiplied by the loss scale."""
import torch


def clip_gradients(model, clip):
    norms = []
    for name, p in model.named_parameters():
        if p.grad is not None:
            param_norm = p.grad.data.norm(2)
            norms.append(param_norm.item())
            clip_coef = clip / (param_norm + 1e-6)
            if clip_coef < 1:
                p.grad.data.mul_(clip_coef)  # expect: GL301
    return norms


def train_one_epoch(student, teacher, loss_fn, loader, optimizer, scaler, clip_grad=3.0):
    for images in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = loss_fn(student(images), teacher(images))
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        if clip_grad:
            clip_gradients(student, clip_grad)
        scaler.step(optimizer)
        scaler.update()


def main(student, teacher, loss_fn, loader):
    optimizer = torch.optim.AdamW(student.parameters())
    scaler = torch.amp.GradScaler("cuda")
    train_one_epoch(student, teacher, loss_fn, loader, optimizer, scaler)
