import torch
import torch.nn.functional as F

from model import ViT
from data import train_loader

model = ViT(image_size=224, patch_size=16, dim=768, depth=12, heads=12, num_classes=1000).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.3)
scaler = torch.amp.GradScaler("cuda")

for epoch in range(300):
    for images, labels in train_loader(batch_size=64):
        images, labels = images.cuda(), labels.cuda()
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(images), labels)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
