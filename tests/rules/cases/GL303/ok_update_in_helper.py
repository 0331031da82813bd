import torch

scaler = torch.amp.GradScaler("cuda")


def optimizer_step(optimizer):
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)


for batch in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch).mean()
    scaler.scale(loss).backward()
    optimizer_step(optimizer)
