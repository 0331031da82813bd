"""GRPO over micro-batches: each micro-batch's loss is a masked mean over the window's token
count (counted before the window runs), so the window's gradients add up to its mean; an empty
mask gives zero instead of dividing by it."""
import torch


def masked_mean(values, mask, axis=None, denominator=None):
    numerator = (values * mask).sum(dim=axis)
    denom = mask.sum(dim=axis) if denominator is None else denominator
    if isinstance(denom, torch.Tensor):
        return torch.where(denom > 0, numerator / denom, torch.zeros_like(numerator))
    return numerator / denom if denom > 0 else torch.zeros_like(numerator)


def train_step(model, optim, samples, accumulation_steps, beta=0.04):
    token_counts = [sum(s["mask"].sum() for s in samples[i : i + accumulation_steps]) for i in range(0, len(samples), accumulation_steps)]
    local_step = 0
    for idx, sample in enumerate(samples):
        logprobs = model(sample["input_ids"]).log_softmax(-1)
        pg_loss = -(logprobs * sample["advantages"])
        kl = (logprobs - sample["ref_logprobs"]).exp() - 1
        loss = masked_mean(pg_loss + beta * kl, sample["mask"], None, token_counts[idx // accumulation_steps])
        loss.backward()
        local_step += 1
        if local_step % accumulation_steps == 0 or local_step == len(samples):
            optim.step()
            optim.zero_grad(set_to_none=True)
