import torch
import torch.nn as nn

from models import UNet3D
from data import brats_loader

scaler = torch.amp.GradScaler("cuda")


def forward_backward(model, volume, seg, criterion):
    with torch.autocast("cuda", dtype=torch.float16):
        pred = model(volume)
        loss = criterion(pred, seg)
    scaler.scale(loss).backward()
    return loss.item()


def main():
    model = UNet3D(in_channels=4, num_classes=4).cuda()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    criterion = nn.CrossEntropyLoss()
    loader = brats_loader(batch_size=2, patch=128)
    for epoch in range(300):
        for volume, seg in loader:
            optimizer.zero_grad()
            loss = forward_backward(model, volume.cuda(), seg.cuda(), criterion)
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 12.0)  # expect: GL301
            scaler.step(optimizer)
            scaler.update()
        print(f"epoch {epoch}: {loss:.4f}")


if __name__ == "__main__":
    main()
