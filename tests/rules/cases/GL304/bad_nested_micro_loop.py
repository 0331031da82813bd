import torch

scaler = torch.amp.GradScaler("cuda")
for step in range(max_steps):
    for micro in range(grad_accum_steps):
        x, y = get_batch("train")
        with torch.autocast("cuda", dtype=torch.float16):
            logits, loss = model(x, y)
            loss = loss / grad_accum_steps
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)  # expect: GL304
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
