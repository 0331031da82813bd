import torch
import torch.nn as nn
from torch.amp import GradScaler, autocast

from models import ResNet50
from data import imagenet_loader

model = ResNet50(num_classes=1000).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()
scaler = GradScaler("cuda")
loader = imagenet_loader("train", batch_size=256)

for epoch in range(90):
    for images, target in loader:
        images, target = images.cuda(non_blocking=True), target.cuda(non_blocking=True)
        optimizer.zero_grad()
        with autocast("cuda"):
            output = model(images)
            loss = criterion(output, target)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)  # expect: GL301
        scaler.step(optimizer)
        scaler.update()
