import torch
import torch.nn as nn

from models import MobileNetV3
from data import food101_loader

accum = 4
model = MobileNetV3(num_classes=101).cuda()
optimizer = torch.optim.RMSprop(model.parameters(), lr=0.064, alpha=0.9, momentum=0.9, weight_decay=1e-5)
criterion = nn.CrossEntropyLoss()
loader = food101_loader(batch_size=64)

model.zero_grad()
for epoch in range(150):
    for i, (images, labels) in enumerate(loader):
        loss = criterion(model(images.cuda()), labels.cuda()) / accum
        loss.backward()
        if (i + 1) % accum == 0:  # expect: GL205
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            optimizer.step()
            model.zero_grad()
