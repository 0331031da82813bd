import torch

scaler = torch.amp.GradScaler("cuda", enabled=args.amp)  # expect: GL306
for step, batch in enumerate(train_loader):
    with torch.autocast("cuda", enabled=args.amp):  # expect: GL306
        outputs = model(**batch)
        loss = outputs.loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
