import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer)
for i, (x, y) in enumerate(batches):
    loss = criterion(model(x), y) / accum
    loss.backward()
    if (i + 1) % accum == 0 or i + 1 == len(batches):
        optimizer.step()
        optimizer.zero_grad()
    scheduler.step(loss.item())
