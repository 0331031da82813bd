"""MuZero-style learner: the update function clears, backpropagates and steps on either AMP
setting, and the loop calls it from both branches of the same switch; no path of a run steps
without the clear before it."""
import torch
from torch.cuda.amp import GradScaler


def update_weights(model, batch, optimizer, config, scaler):
    loss = model.loss(batch)
    optimizer.zero_grad()
    if config.amp_type == "none":
        loss.backward()
    elif config.amp_type == "torch_amp":
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), config.max_grad_norm)
    if config.amp_type == "torch_amp":
        scaler.step(optimizer)
        scaler.update()
    else:
        optimizer.step()
    return loss.item(), scaler


def train(model, batches, config):
    optimizer = torch.optim.SGD(model.parameters(), lr=config.lr, momentum=config.momentum)
    scaler = GradScaler()
    for step_count in range(config.training_steps):
        batch = batches.get()
        if config.amp_type == "torch_amp":
            loss, scaler = update_weights(model, batch, optimizer, config, scaler)
        else:
            loss, _ = update_weights(model, batch, optimizer, config, scaler)
