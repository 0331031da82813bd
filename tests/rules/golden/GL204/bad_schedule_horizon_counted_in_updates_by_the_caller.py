import torch
from torch.optim.lr_scheduler import CosineAnnealingLR


def train_step(model, batches, optimizer, scaler, scheduler, config):
    """The caller counts the horizon in updates: stepped per micro-batch, the schedule ends early."""
    for micro_step in range(config.gradient_accumulation_steps):
        inputs, targets = next(batches)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        scaler.scale(loss / config.gradient_accumulation_steps).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
    scaler.step(optimizer)
    scaler.update()
    scheduler.step()  # expect: GL106, GL204
    optimizer.zero_grad(set_to_none=True)


def train(model, loader, config):
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    scaler = torch.amp.GradScaler("cuda")
    total_updates = config.iterations
    scheduler = CosineAnnealingLR(optimizer, T_max=total_updates)
    batches = iter(loader)
    for iteration in range(config.iterations):
        train_step(model, batches, optimizer, scaler, scheduler, config)
