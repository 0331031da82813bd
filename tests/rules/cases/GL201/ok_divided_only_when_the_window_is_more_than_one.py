"""The step helper divides the loss by the window only when accumulation is on
(`loss / n if n > 1 else loss`): where it is not divided, the window is one micro-batch."""
import torch


def train_step(model, batch, criterion, scaler, gradient_accumulation_steps):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(batch["x"]), batch["y"])
    scaled = loss / gradient_accumulation_steps if gradient_accumulation_steps > 1 else loss
    scaler.scale(scaled).backward()
    return loss.detach()


def train_one_epoch(model, loader, criterion, optimizer, scaler, gradient_accumulation_steps=1):
    optimizer.zero_grad(set_to_none=True)
    for batch_index, batch in enumerate(loader):
        train_step(model, batch, criterion, scaler, gradient_accumulation_steps)
        if (batch_index + 1) % gradient_accumulation_steps == 0 or batch_index + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
