import torch

optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
for it in range(max_iters):
    for micro_step in range(grad_accum_steps):
        x, y = get_batch("train")
        loss = model(x, y) / grad_accum_steps
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL203
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
