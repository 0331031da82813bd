import torch
from transformers import get_cosine_schedule_with_warmup


def fit(cfg, model, loader, optimizer, scaler):
    """The schedule is counted in micro-batches (stepping it on each is right), but each step
    comes before the boundary's update: the first value is skipped and every update's rate is
    the next micro-batch's."""
    total = len(loader) * cfg.epochs
    scheduler = get_cosine_schedule_with_warmup(optimizer, cfg.warmup * cfg.accumulate, total)
    for epoch in range(cfg.epochs):
        for it, (images, texts) in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model(images, texts) / cfg.accumulate
            scaler.scale(loss).backward()
            if (it + 1) % cfg.accumulate == 0 or it + 1 == len(loader):
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_norm)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
            scheduler.step()  # expect: GL106
