"""LoRA fine-tuning on a memory-mapped token file, the number of batches in an epoch passed in:
after the windows, a partial last one is flushed when the epoch's length is no multiple of the
window, so nothing is left for the next epoch's clear."""
import torch


def train_epoch(model, get_batch, steps_per_epoch, optimizer, scheduler, scaler, criterion, args):
    model.train()
    total_loss = 0.0
    optimizer.zero_grad(set_to_none=True)
    for step in range(steps_per_epoch):
        inputs, targets = get_batch(step)
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(inputs)
            loss = criterion(logits.flatten(0, 1), targets.flatten())
        scaler.scale(loss / args.gradient_accumulation_steps).backward()
        if (step + 1) % args.gradient_accumulation_steps == 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
        total_loss += loss.item()
    if steps_per_epoch % args.gradient_accumulation_steps != 0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
    return total_loss / steps_per_epoch

