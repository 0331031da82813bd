import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for epoch in range(epochs):
    for i, (x, y) in enumerate(train_loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0 or i + 1 == len(train_loader):
            optimizer.step()
            optimizer.zero_grad()
