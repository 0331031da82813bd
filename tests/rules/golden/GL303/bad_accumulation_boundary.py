import torch

grad_accum = 4
scaler = torch.amp.GradScaler("cuda")
optimizer.zero_grad()
for i, batch in enumerate(dataloader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(batch["input_ids"].cuda(), labels=batch["labels"].cuda()).loss / grad_accum
    scaler.scale(loss).backward()
    if (i + 1) % grad_accum == 0 or i + 1 == len(dataloader):  # expect: GL205
        scaler.step(optimizer)  # expect: GL303
        scaler.update()
        optimizer.zero_grad()
        lr_scheduler.step()
