import torch

scaler = torch.amp.GradScaler("cuda")
for batch in dataloader:
    with torch.autocast("cuda", dtype=torch.float16):
        outputs = model(**batch)
        loss = outputs.loss
    scaler.scale(loss)
    scaler.scale(loss).backward()  # expect: GL305
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
