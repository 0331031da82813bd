import torch

accum_iter = 8
scaler = torch.amp.GradScaler("cuda")
for data_iter_step, (samples, _) in enumerate(data_loader):
    with torch.autocast("cuda", dtype=torch.float16):
        loss, _, _ = model(samples.cuda(), mask_ratio=0.75)
    loss = loss / accum_iter
    scaled = scaler.scale(loss)
    loss.backward()  # expect: GL305
    if (data_iter_step + 1) % accum_iter == 0:  # expect: GL205
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
