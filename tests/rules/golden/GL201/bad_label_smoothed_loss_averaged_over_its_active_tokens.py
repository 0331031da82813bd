"""A question-generation trainer takes a label-smoothed loss that averages over the batch's
non-padded tokens (`padding_mask.numel() - padding_mask.long().sum()`), a mean over its own
micro-batch, and steps every `gradient_accumulation_steps` without dividing by them."""
import torch
import torch.nn.functional as functional

IGNORE_INDEX = -100


def label_smoothed_loss(logits, labels, epsilon):
    log_probs = -functional.log_softmax(logits, dim=-1)
    if labels.dim() == log_probs.dim() - 1:
        labels = labels.unsqueeze(-1)
    padding_mask = labels.eq(IGNORE_INDEX)
    labels = labels.clamp_min(0)
    nll_loss = log_probs.gather(dim=-1, index=labels).masked_fill(padding_mask, 0.0)
    smoothed_loss = log_probs.sum(dim=-1, keepdim=True).masked_fill(padding_mask, 0.0)
    num_active_elements = padding_mask.numel() - padding_mask.long().sum()
    nll_loss = nll_loss.sum() / num_active_elements
    smoothed_loss = smoothed_loss.sum() / (num_active_elements * log_probs.shape[-1])
    return (1 - epsilon) * nll_loss + epsilon * smoothed_loss


def train_single_epoch(model, optimizer, scaler, loader, gradient_accumulation_steps, epsilon=0.1):
    optimizer.zero_grad()
    for n, batch in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(batch["input_ids"]).logits
        loss = label_smoothed_loss(logits, batch["labels"], epsilon)
        scaler.scale(loss / gradient_accumulation_steps).backward()  # expect: GL201
        if (n + 1) % gradient_accumulation_steps != 0 and n + 1 != len(loader):
            continue
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
