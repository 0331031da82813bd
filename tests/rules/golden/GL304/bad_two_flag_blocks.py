import torch

scaler = torch.amp.GradScaler("cuda")
for epoch in range(args.epochs):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        if args.clip_grad:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
        if args.log_grad_norm:
            logger.log({"grad_norm": grad_norm(model)})
        scaler.step(optimizer)
        scaler.update()
