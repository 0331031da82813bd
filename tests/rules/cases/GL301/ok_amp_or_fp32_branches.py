import torch
import torch.nn as nn

from models import get_model
from data import get_loaders


def train_one_epoch(model, criterion, optimizer, loader, device, scaler=None, clip_grad_norm=None):
    model.train()
    for i, (image, target) in enumerate(loader):
        image, target = image.to(device), target.to(device)
        with torch.autocast("cuda", enabled=scaler is not None):
            loss = criterion(model(image), target)
        optimizer.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
            if clip_grad_norm is not None:
                scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), clip_grad_norm)
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            if clip_grad_norm is not None:
                nn.utils.clip_grad_norm_(model.parameters(), clip_grad_norm)
            optimizer.step()


def main(use_amp=True):
    model = get_model("regnet_y_400mf").cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.8, momentum=0.9, weight_decay=5e-5)
    scaler = torch.amp.GradScaler("cuda") if use_amp else None
    train_loader, _ = get_loaders(batch_size=128)
    for epoch in range(100):
        train_one_epoch(model, nn.CrossEntropyLoss(), optimizer, train_loader, "cuda", scaler, clip_grad_norm=1.0)
