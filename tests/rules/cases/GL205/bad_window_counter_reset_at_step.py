import torch
from tqdm import tqdm


def train_one_epoch(model, train_loader, criterion, optimizer, scaler, cfg):
    model.train()
    pbar = tqdm(enumerate(train_loader), total=len(train_loader))
    num_iter = 0
    for idx, data in pbar:
        data = {k: v.cuda(non_blocking=True) for k, v in data.items()}
        num_iter += 1
        with torch.autocast("cuda", enabled=cfg.use_amp):
            loss = criterion(model(data), data["y"]) / cfg.step_per_update
        scaler.scale(loss).backward()
        if num_iter == cfg.step_per_update:  # expect: GL205
            num_iter = 0
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        pbar.set_description(f"loss {loss.item():.3f}")


def main(model, train_loader, criterion, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
    scaler = torch.amp.GradScaler("cuda", enabled=cfg.use_amp)
    for epoch in range(cfg.epochs):
        train_one_epoch(model, train_loader, criterion, optimizer, scaler, cfg)
