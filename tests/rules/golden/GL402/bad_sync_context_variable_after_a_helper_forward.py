"""GRPO written by hand: the policy's log-probabilities come from a helper handed the DDP model
(or the bare one on a single process), and the `no_sync()` context kept in a name is entered
only around the backward, after that forward: DDP already prepared the all-reduce."""
from contextlib import nullcontext

import torch


def forward_get_log_probs(seq_ids, model, attention_mask, prompt_len):
    logits = model(input_ids=seq_ids, attention_mask=attention_mask).logits
    return torch.log_softmax(logits[:, prompt_len - 1 : -1], dim=-1)


def train(ddp_model, lora_model, optimizer, rollouts, is_dist, accumulation_steps, prompt_len):
    for micro_step, (seq_ids, mask, advantages) in enumerate(rollouts):
        log_probs = forward_get_log_probs(seq_ids, ddp_model if is_dist else lora_model, mask, prompt_len)
        loss = -(log_probs.sum(-1) * advantages).mean()
        is_accumulating = (micro_step + 1) % accumulation_steps != 0
        sync_context = ddp_model.no_sync() if (is_dist and is_accumulating) else nullcontext()
        with sync_context:  # expect: GL402
            loss = loss / accumulation_steps
            loss.backward()
        if not is_accumulating or micro_step + 1 == len(rollouts):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
