import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for batch_idx, (x, y) in enumerate(loader):
    lr_scheduler.step_update(num_updates=num_updates)
    lr_scheduler.step(epoch + batch_idx / len(loader))
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    num_updates += 1
