import torch

scaler = torch.amp.GradScaler("cuda") if args.fp16 else None
model.train()
for batch_idx, (data, target) in enumerate(train_loader):
    data, target = data.cuda(), target.cuda()
    optimizer.zero_grad()
    with torch.autocast("cuda", enabled=scaler is not None):
        output = model(data)
        loss = loss_fn(output, target)
    if scaler is not None:
        scaler.scale(loss).backward()
    else:
        loss.backward()
    if scaler is None:
        optimizer.step()
    else:
        scaler.step(optimizer)
        scaler.update()
