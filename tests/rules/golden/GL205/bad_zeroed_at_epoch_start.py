import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
accum_steps = 4
for epoch in range(epochs):
    optimizer.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0 or i + 1 == len(train_loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
