import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
for i, batch in enumerate(stream_batches(shards, seed=epoch)):
    loss = model(**batch).loss / accum_steps
    loss.backward()
    if (i + 1) % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
