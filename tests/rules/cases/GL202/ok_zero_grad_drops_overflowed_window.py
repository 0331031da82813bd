"""A hand-managed loss scale: when the gradients overflow, they are dropped and the update of that
window is skipped; zero_grad runs only then, not on every micro-batch."""
import torch


def has_overflow(model):
    return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in model.parameters())


def train(model, loader, optimizer, accumulation_steps=4, clip=1.0):
    scale = 2.0 ** 10
    step = 0
    for batch in loader:
        step += 1
        loss = model(**batch).loss / accumulation_steps
        (scale * loss).backward()
        overflow = has_overflow(model)
        if overflow:
            model.zero_grad()
            scale /= 2
        if (step % accumulation_steps == 0 or step == len(loader)) and not overflow:
            for p in model.parameters():
                if p.grad is not None:
                    p.grad.div_(scale)
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            model.zero_grad()
