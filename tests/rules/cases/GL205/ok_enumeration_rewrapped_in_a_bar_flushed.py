"""The re-wrapped enumeration of the bad case, stepping on the epoch's last micro-batch too."""
import torch
from tqdm import tqdm

from data import build_text_loader
from models import TextDetector, DBLoss


def train(epochs=100, accumulation_steps=4, device="cuda"):
    model = TextDetector().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = DBLoss()
    train_loader = build_text_loader("data/train", batch_size=8)
    nb = len(train_loader)
    for epoch in range(epochs):
        model.train()
        pbar = enumerate(train_loader)
        pbar = tqdm(pbar, total=nb)
        for i, (imgs, maps) in pbar:
            loss = criterion(model(imgs.to(device)), maps.to(device)) / accumulation_steps
            loss.backward()
            if (i + 1) % accumulation_steps == 0 or i + 1 == nb:
                optimizer.step()
                optimizer.zero_grad()
