import torch

scaler = torch.amp.GradScaler("cuda")
model.train()
for x, y in train_loader:
    x, y = x.cuda(), y.cuda()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = loss_fn(model(x), y)
    optimizer.zero_grad()
    loss.backward()  # expect: GL305
    scaler.step(optimizer)
    scaler.update()
