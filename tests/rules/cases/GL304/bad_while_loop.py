import torch

scaler = torch.amp.GradScaler("cuda")
it = 0
while it < total_iters:
    batch = next(train_iter)
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch)
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    if it % 50 == 0:
        print(it, loss.item(), norm.item())
    scaler.unscale_(optimizer)  # expect: GL304
    scaler.step(optimizer)
    scaler.update()
    it += 1
