import torch

accumulation_steps = 4
scaler = torch.amp.GradScaler("cuda")
for i, (images, labels) in enumerate(train_loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss = criterion(model(images), labels) / accumulation_steps
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)  # expect: GL304
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=2.0)  # expect: GL203
    if (i + 1) % accumulation_steps == 0:  # expect: GL205
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
