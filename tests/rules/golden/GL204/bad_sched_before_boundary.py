import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=[3000, 6000])
for i, (x, y) in enumerate(batches):
    loss = criterion(model(x), y) / update_freq
    loss.backward()
    if (i + 1) % update_freq == 0 or i + 1 == len(batches):
        optimizer.step()
        scheduler.step()  # expect: GL106, GL204
        optimizer.zero_grad()
