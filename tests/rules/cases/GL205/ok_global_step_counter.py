import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
global_step = 0
for epoch in range(epochs):
    for x, y in train_loader:
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        global_step += 1
        if global_step % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
