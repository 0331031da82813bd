import torch

scaler = torch.amp.GradScaler("cuda")
step = 0
while step < args.max_steps:
    x, y = sampler.next_batch()
    with torch.autocast("cuda", dtype=torch.float16):
        loss = model(x, y)
    optimizer.zero_grad()
    scaled_loss = scaler.scale(loss)
    scaled_loss.backward()  # expect: GL305
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    step += 1
