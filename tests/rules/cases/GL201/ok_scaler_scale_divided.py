import torch
import torch.nn as nn

from model import EfficientNetB0
from data import make_loader

device = "cuda"
accumulation_steps = 4
model = EfficientNetB0(num_classes=200).to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-5)
scaler = torch.amp.GradScaler("cuda")
criterion = nn.CrossEntropyLoss()
loader = make_loader("tiny-imagenet/train", batch_size=64)

for epoch in range(90):
    optimizer.zero_grad()
    for i, (images, target) in enumerate(loader):
        images, target = images.to(device), target.to(device)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            loss = criterion(model(images), target)
        scaler.scale(loss / accumulation_steps).backward()
        if (i + 1) % accumulation_steps == 0:  # expect: GL205
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
