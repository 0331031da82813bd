import torch
import torch.nn as nn
from torch.cuda.amp import GradScaler, autocast

from yolo import YOLOv5s, ComputeLoss
from data import coco_yolo_loader

nbs = 64
batch_size = 16
accumulate = max(round(nbs / batch_size), 1)
model = YOLOv5s(nc=80).cuda()
optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.937, nesterov=True)
compute_loss = ComputeLoss(model)
scaler = GradScaler()
loader = coco_yolo_loader(batch_size=batch_size)

for epoch in range(300):
    optimizer.zero_grad()
    for i, (imgs, targets) in enumerate(loader):
        imgs = imgs.cuda(non_blocking=True).float() / 255
        with autocast():
            loss, loss_items = compute_loss(model(imgs), targets.cuda())
        scaler.scale(loss / accumulate).backward()
        if (i + 1) % accumulate == 0:  # expect: GL205
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=10.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
