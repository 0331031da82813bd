import torch

scaler = torch.amp.GradScaler("cuda")
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
sched = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 1000))
for i, batch in enumerate(train_loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(**batch).loss / accum
    scaler.scale(loss).backward()
    if (i + 1) % accum == 0 or i + 1 == len(train_loader):
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
    sched.step()  # expect: GL204
