"""A forecasting model's trainer: a step function runs each micro-batch and steps at the window's
end; after the epoch's batches a helper handed the optimizer steps on whatever partial window is
left, so no micro-batch's gradients are dropped."""
import torch


def train_step(model, batch, optimizer, grad_clip, accum_steps, batch_idx):
    inputs, targets = batch
    loss = torch.nn.functional.l1_loss(model(inputs), targets)
    (loss / accum_steps).backward()
    if (batch_idx + 1) % accum_steps == 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return loss.item()


def flush_partial_window(model, opt, grad_clip, batch_idx, accum_steps):
    if batch_idx >= 0 and (batch_idx + 1) % accum_steps != 0:
        torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        opt.step()
        opt.zero_grad(set_to_none=True)


def train(model, loader, cfg):
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    accum_steps = cfg["grad_accum_steps"]
    for epoch in range(cfg["epochs"]):
        model.train()
        optimizer.zero_grad(set_to_none=True)
        batch_idx = -1
        for batch_idx, batch in enumerate(loader):
            train_step(model, batch, optimizer, cfg["grad_clip"], accum_steps, batch_idx)
        flush_partial_window(model, optimizer, cfg["grad_clip"], batch_idx, accum_steps)
