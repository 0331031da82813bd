import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
for epoch in range(epochs):
    for it, batch in enumerate(loader):
        loss = model(**batch).loss / accum_iters
        loss.backward()
        if (it + 1) % accum_iters != 0:  # expect: GL205
            continue
        optimizer.step()
        optimizer.zero_grad()
