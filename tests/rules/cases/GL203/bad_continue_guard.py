import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for it, batch in enumerate(loader):
    loss = model(**batch).loss / accum_iters
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL203
    if (it + 1) % accum_iters != 0:  # expect: GL205
        continue
    optimizer.step()
    optimizer.zero_grad()
