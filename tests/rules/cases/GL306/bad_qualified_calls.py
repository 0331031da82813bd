import torch

scaler = torch.cuda.amp.GradScaler(enabled=args.amp)  # expect: GL306
for step, batch in enumerate(train_loader):
    with torch.cuda.amp.autocast(enabled=args.amp):  # expect: GL306
        outputs = model(**batch)
        loss = outputs.loss
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad()
