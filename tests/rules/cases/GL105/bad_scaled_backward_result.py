import torch

scaler = torch.amp.GradScaler("cuda")
for batch in loader:
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss
    out = scaler.scale(loss).backward()  # expect: GL105
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
