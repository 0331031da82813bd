import torch
from torch.nn.utils import clip_grad_norm_

scaler = torch.amp.GradScaler("cuda")
for step, batch in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_grad_norm_(model.parameters(), 1.0)
    scaler.unscale_(optimizer)  # expect: GL304
    grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]))
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
