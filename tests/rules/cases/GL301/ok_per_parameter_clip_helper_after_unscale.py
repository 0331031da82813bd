"""The hand-written per-parameter clip runs after `scaler.unscale_(optimizer)`: it measures true
norms. A helper that multiplies every gradient by a fixed factor is no clip."""
import torch


def clip_gradients(model, clip):
    for p in model.parameters():
        if p.grad is None:
            continue
        norm = p.grad.norm()
        coef = torch.clamp(clip / (norm + 1e-6), max=1.0)
        p.grad.mul_(coef)


def scale_gradients(model, factor):
    for p in model.parameters():
        if p.grad is not None:
            p.grad.mul_(factor)


def train_one_epoch(student, loss_fn, loader, optimizer, scaler, clip_grad=3.0):
    for images, targets in loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = loss_fn(student(images), targets)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        clip_gradients(student, clip_grad)
        scale_gradients(student, 0.5)
        scaler.step(optimizer)
        scaler.update()


def main(student, loss_fn, loader):
    optimizer = torch.optim.AdamW(student.parameters())
    scaler = torch.amp.GradScaler("cuda")
    train_one_epoch(student, loss_fn, loader, optimizer, scaler)
