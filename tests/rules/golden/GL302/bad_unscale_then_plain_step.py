import torch
from torch.nn.utils import clip_grad_norm_

model = build_model(cfg).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
scaler = torch.amp.GradScaler("cuda")

for it, batch in enumerate(loader):
    with torch.autocast("cuda", dtype=torch.float16):
        out = model(**batch)
        loss = out["loss"]
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
    scaler.step(optimizer)  # expect: GL302
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    if it % 100 == 0:
        print(it, loss.item())
