import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
sched = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max_iters)
for it in range(max_iters):
    for micro_step in range(grad_accum_steps):
        x, y = get_batch("train")
        loss = model(x, y) / grad_accum_steps
        loss.backward()
    optimizer.step()
    sched.step()  # expect: GL106, GL204
    optimizer.zero_grad(set_to_none=True)
