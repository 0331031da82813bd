import torch
import torch.nn.functional as F

from modeling import GPT, GPTConfig
from data import get_batch


def train_micro_step(model, optimizer, scaler, x, y, is_last_micro_step, grad_clip):
    with torch.autocast(device_type="cuda", dtype=torch.float16):
        logits = model(x)
        loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1), ignore_index=-1)
    scaler.scale(loss).backward()  # expect: GL201
    if is_last_micro_step:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)
    return loss.detach()


def train(config, max_iters=600000, gradient_accumulation_steps=8, grad_clip=1.0):
    model = GPT(GPTConfig(**config)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95))
    scaler = torch.amp.GradScaler("cuda")
    for it in range(max_iters):
        for micro_step in range(gradient_accumulation_steps):
            x, y = get_batch("train")
            train_micro_step(model, optimizer, scaler, x, y, micro_step == gradient_accumulation_steps - 1, grad_clip)
