import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
accum = 8
for i, batch in enumerate(loader):
    loss = model(**batch).loss / accum
    loss.backward()
    if (i + 1) % accum == 0 or i + 1 == len(loader):
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
