import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
micro = 0
while True:
    batch = next(stream)
    loss = model(batch) / accum_steps
    loss.backward()
    micro += 1
    if micro % accum_steps == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL203
        optimizer.step()
        optimizer.zero_grad()
