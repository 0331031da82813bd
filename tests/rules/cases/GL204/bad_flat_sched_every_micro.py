import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=5e-5, total_steps=total_updates)
accum_steps = 4
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0 or i + 1 == len(loader):
        optimizer.step()
        optimizer.zero_grad()
    scheduler.step()  # expect: GL204
