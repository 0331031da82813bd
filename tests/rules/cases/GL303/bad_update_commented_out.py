import torch

scaler = torch.amp.GradScaler("cuda")
for epoch in range(num_epochs):
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            pred = model(x.cuda())
            loss = loss_fn(pred, y.cuda())
        scaler.scale(loss).backward()
        scaler.step(optimizer)  # expect: GL303
        # scaler.update()  -- disabled while debugging the loss spikes
