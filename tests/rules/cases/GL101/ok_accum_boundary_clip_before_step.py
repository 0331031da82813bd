import torch
from torch.nn.utils import clip_grad_norm_

from models import build_detector
from data import coco_loader

accum_steps = 4
max_norm = 10.0
model = build_detector("fasterrcnn_resnet50_fpn", num_classes=91)
params = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-4)
loader = coco_loader("train2017", batch_size=2)

model.train()
for epoch in range(12):
    for i, (images, targets) in enumerate(loader):
        loss_dict = model(images, targets)
        loss = sum(v for v in loss_dict.values())
        loss = loss / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:  # expect: GL205
            clip_grad_norm_(params, max_norm)
            optimizer.step()
            optimizer.zero_grad()
        if i % 20 == 0:
            print({k: round(v.item(), 4) for k, v in loss_dict.items()})
