import torch

scaler = torch.amp.GradScaler("cuda")
for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    if args.clip_mode == "norm":
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
    else:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_value_(model.parameters(), args.clip)
    scaler.step(optimizer)
    scaler.update()
