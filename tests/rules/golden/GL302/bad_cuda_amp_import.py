import torch
from torch.amp import GradScaler, autocast

from models import UNet
from data import get_loader

net = UNet(n_channels=3, n_classes=2).cuda()
optimizer = torch.optim.RMSprop(net.parameters(), lr=1e-5, weight_decay=1e-8, momentum=0.9)
criterion = torch.nn.CrossEntropyLoss()
grad_scaler = GradScaler("cuda")

for epoch in range(1, 6):
    net.train()
    for batch in get_loader("train"):
        images, masks = batch["image"].cuda(), batch["mask"].cuda()
        with autocast("cuda"):
            masks_pred = net(images)
            loss = criterion(masks_pred, masks)
        optimizer.zero_grad()
        grad_scaler.scale(loss).backward()
        grad_scaler.step(optimizer)  # expect: GL302
        grad_scaler.update()
