import torch

from model import GPT, GPTConfig
from data import get_batch

gradient_accumulation_steps = 40
grad_clip = 1.0
max_iters = 600_000

model = GPT(GPTConfig(n_layer=12, n_head=12, n_embd=768)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
scaler = torch.amp.GradScaler("cuda")

X, Y = get_batch("train")
for it in range(max_iters):
    for micro_step in range(gradient_accumulation_steps):
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch("train")
        scaler.scale(loss).backward()
    if grad_clip != 0.0:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if it % 10 == 0:
        print(f"iter {it}: loss {loss.item() * gradient_accumulation_steps:.4f}")
