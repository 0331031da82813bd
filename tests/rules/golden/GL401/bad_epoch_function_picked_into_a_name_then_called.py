"""A 3D-reconstruction script wraps its model in DDP and picks the epoch function by option into
a local name (`train_function = train_epoch_wild if ... else train_epoch`), then calls that name:
both functions accumulate without `no_sync()`."""
import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train_epoch(config, loader, model, optimizer, scaler):
    for batch_idx, batch in enumerate(loader):
        sync_context = contextlib.nullcontext() if (batch_idx + 1) % config.accumulation_step == 0 or batch_idx + 1 == len(loader) else model.no_sync()
        with sync_context:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(batch).mean() / config.accumulation_step
            scaler.scale(loss).backward()  # expect: GL401
        if (batch_idx + 1) % config.accumulation_step == 0 or batch_idx + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def train_epoch_wild(config, loader, model, optimizer, scaler):
    for batch_idx, (batch, wild) in enumerate(loader):
        sync_context = contextlib.nullcontext() if (batch_idx + 1) % config.accumulation_step == 0 or batch_idx + 1 == len(loader) else model.no_sync()
        with sync_context:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = (model(batch).mean() + model(wild).mean()) / config.accumulation_step
            scaler.scale(loss).backward()  # expect: GL401
        if (batch_idx + 1) % config.accumulation_step == 0 or batch_idx + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


def main(config, model, loader, local_rank):
    model = DDP(model.cuda(local_rank), device_ids=[local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    scaler = torch.amp.GradScaler("cuda")
    train_function = None
    if config.use_wild:
        train_function = train_epoch_wild
    else:
        train_function = train_epoch
    for epoch in range(config.epochs):
        train_function(config, loader, model, optimizer, scaler)
