import torch
import torch.nn.functional as F

from model import GPT, GPTConfig
from data import get_batch

accum = 8
max_iters = 100_000
model = GPT(GPTConfig(n_layer=6, n_head=6, n_embd=384)).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99))

for it in range(max_iters):
    for micro in range(accum):
        x, y = get_batch("train")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1))
        (loss / accum).backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)  # expect: GL202
    if it % 100 == 0:
        print(f"iter {it}: loss {loss.item():.4f}")
