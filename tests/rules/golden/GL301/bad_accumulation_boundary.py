import torch
import torch.nn as nn

from model import SwinTransformer
from data import build_loader

accum_steps = 4
clip_grad = 5.0
model = SwinTransformer(img_size=224, embed_dim=96, depths=(2, 2, 6, 2), num_classes=1000).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.05)
scaler = torch.amp.GradScaler("cuda")
criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
loader = build_loader("imagenet", batch_size=128)

for epoch in range(300):
    optimizer.zero_grad()
    for idx, (samples, targets) in enumerate(loader):
        samples, targets = samples.cuda(non_blocking=True), targets.cuda(non_blocking=True)
        with torch.autocast("cuda", dtype=torch.float16):
            outputs = model(samples)
            loss = criterion(outputs, targets) / accum_steps
        scaler.scale(loss).backward()
        if (idx + 1) % accum_steps == 0 or idx + 1 == len(loader):  # expect: GL205
            scaler.unscale_(optimizer)
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), clip_grad)  # expect: GL301
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
