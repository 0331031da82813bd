import torch
import torch.nn as nn

from gan import StyleDiscriminator
from data import pair_loader

model = StyleDiscriminator(img_size=256).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=2e-4, betas=(0.0, 0.99))
scaler = torch.amp.GradScaler("cuda")
criterion = nn.BCEWithLogitsLoss()
loader = pair_loader("ffhq", batch_size=32)

for epoch in range(50):
    for i, (images, is_real) in enumerate(loader):
        images, is_real = images.cuda(), is_real.cuda().float()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(images).squeeze(1)
            loss = criterion(logits, is_real)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_value_(model.parameters(), 0.01)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
