import torch

scaler = torch.amp.GradScaler("cuda")


def clip_gradients(model, optimizer, max_norm):
    scaler.unscale_(optimizer)
    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


for x, y in loader:
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(x), y)
    scaler.scale(loss).backward()
    clip_gradients(model, optimizer, 5.0)
    scaler.step(optimizer)
    scaler.update()
