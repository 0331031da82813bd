import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
accum_steps = 4
for i, (x, y) in enumerate(loader):
    loss = criterion(model(x), y) / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0 or i + 1 == len(loader):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
