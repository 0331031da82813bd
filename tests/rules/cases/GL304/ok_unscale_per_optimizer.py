import torch

scaler = torch.amp.GradScaler("cuda")
for real in loader:
    opt_d.zero_grad()
    opt_g.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        fake = generator(noise())
        loss_d = d_loss(discriminator(real), discriminator(fake.detach()))
        loss_g = g_loss(discriminator(fake))
    scaler.scale(loss_d + loss_g).backward()
    scaler.unscale_(opt_d)
    scaler.unscale_(opt_g)
    torch.nn.utils.clip_grad_norm_(discriminator.parameters(), 10.0)
    torch.nn.utils.clip_grad_norm_(generator.parameters(), 10.0)
    scaler.step(opt_d)
    scaler.step(opt_g)
    scaler.update()
