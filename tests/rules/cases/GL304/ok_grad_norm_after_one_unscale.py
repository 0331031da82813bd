import torch

scaler = torch.amp.GradScaler("cuda")
for step, (x, y) in enumerate(loader):
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    # the gradients are already unscaled: log their true norm
    grad_norm = torch.norm(torch.stack([p.grad.norm() for p in model.parameters() if p.grad is not None]))
    scaler.step(optimizer)
    scaler.update()
