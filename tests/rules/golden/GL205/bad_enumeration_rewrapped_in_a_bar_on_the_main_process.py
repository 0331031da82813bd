"""A text detector trained the way YOLOv5-style scripts write the epoch: the enumeration is named
first and wrapped in a progress bar on the main process only; the window never flushes."""
import torch
from torch.cuda import amp
from tqdm import tqdm

from data import build_text_loader
from models import TextDetector, DBLoss

RANK = int(__import__("os").environ.get("RANK", -1))


def train(epochs=100, accumulation_steps=4, device="cuda"):
    model = TextDetector().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = DBLoss()
    train_loader = build_text_loader("data/train", batch_size=8)
    nb = len(train_loader)
    for epoch in range(epochs):
        model.train()
        optimizer.zero_grad()
        pbar = enumerate(train_loader)
        if RANK in (-1, 0):
            pbar = tqdm(pbar, total=nb, bar_format="{l_bar}{bar:10}{r_bar}")
        for i, (imgs, maps) in pbar:
            with torch.autocast("cuda"):
                preds = model(imgs.to(device))
                loss = criterion(preds, maps.to(device)) / accumulation_steps
            loss.backward()
            if (i + 1) % accumulation_steps == 0 or i + 1 == len(train_loader):  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
            if RANK in (-1, 0):
                pbar.set_description(f"epoch {epoch} loss {loss.item():.4f}")
