import torch
from torch.nn.utils import clip_grad_norm_

scaler = torch.amp.GradScaler("cuda")
for step, batch in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16, enabled=args.amp):
        loss = model(**batch).loss
    if args.amp:
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
    else:
        loss.backward()
    clip_grad_norm_(model.parameters(), args.max_norm)
    if args.amp:
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
    optimizer.zero_grad()
