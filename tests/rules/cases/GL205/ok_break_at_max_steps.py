import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for i, batch in enumerate(train_loader):
    if i >= max_updates * accum_steps:
        break
    loss = model(**batch).loss / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
