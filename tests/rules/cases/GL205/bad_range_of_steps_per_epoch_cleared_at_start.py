"""LoRA fine-tuning on a memory-mapped token file: the caller passes the number of batches in an
epoch, the epoch function clears once at its start and steps every `gradient_accumulation_steps`
batches, so a partial last window is backpropagated and then cleared by the next epoch."""
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
        if (step + 1) % args.gradient_accumulation_steps == 0:  # expect: GL205
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
        total_loss += loss.item()
    return total_loss / steps_per_epoch

