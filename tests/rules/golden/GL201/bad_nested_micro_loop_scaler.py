import math

import torch

from model import GPT, GPTConfig
from data import get_batch

gradient_accumulation_steps = 5 * 8
grad_clip = 1.0
max_iters = 600_000
learning_rate = 6e-4

model = GPT(GPTConfig(n_layer=12, n_head=12, n_embd=768)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, betas=(0.9, 0.95), weight_decay=0.1)
scaler = torch.amp.GradScaler("cuda", enabled=True)
autocast_ctx = torch.autocast(device_type="cuda", dtype=torch.float16)


def get_lr(it, warmup=2000):
    if it < warmup:
        return learning_rate * (it + 1) / warmup
    return learning_rate * 0.5 * (1 + math.cos(math.pi * it / max_iters))


X, Y = get_batch("train")
for it in range(max_iters):
    for group in optimizer.param_groups:
        group["lr"] = get_lr(it)
    for micro_step in range(gradient_accumulation_steps):
        with autocast_ctx:
            logits, loss = model(X, Y)
        X, Y = get_batch("train")
        scaler.scale(loss / gradient_accumulation_steps).backward()  # expect: GL201
    if grad_clip != 0.0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
