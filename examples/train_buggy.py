"""A small classifier trained with mixed precision and gradient accumulation.

It runs, its loss goes down, and it is wrong in two ways that gradlint finds:
try `gradlint check examples/train_buggy.py`, then `gradlint fix --diff examples/train_buggy.py`.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"

model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 10)).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
scaler = torch.amp.GradScaler(device)
accum_steps = 4
max_grad_norm = 1.0

data = [(torch.randn(16, 32), torch.randint(0, 10, (16,))) for _ in range(64)]

for epoch in range(3):
    for step, (x, y) in enumerate(data):
        x, y = x.to(device), y.to(device)
        with torch.autocast(device, dtype=torch.bfloat16):
            logits = model(x)
            loss = F.cross_entropy(logits, y)
        scaler.scale(loss).backward()

        if (step + 1) % accum_steps == 0:
            # keep the update bounded
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
    print(f"epoch {epoch}: loss {loss.item():.4f}")
