import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=1000)
micro = 0
while True:
    loss = model(next(stream)) / accum_steps
    loss.backward()
    scheduler.step()  # expect: GL106, GL204
    micro += 1
    if micro % accum_steps == 0:
        optimizer.step()
        optimizer.zero_grad()
