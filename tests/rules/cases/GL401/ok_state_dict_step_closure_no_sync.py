"""Score-model training in the style of score-SDE repositories, the step closure built by a
factory and the DDP model found in the `state` dict: the micro-batches that do not step run
under `no_sync()`."""
import contextlib

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


def optimization_manager(config):
    def optimize_fn(optimizer, scaler, params, step):
        if config.warmup > 0:
            for group in optimizer.param_groups:
                group["lr"] = config.lr * min(step / config.warmup, 1.0)
        scaler.unscale_(optimizer)
        if config.grad_clip >= 0:
            torch.nn.utils.clip_grad_norm_(params, max_norm=config.grad_clip)
        scaler.step(optimizer)
        scaler.update()

    return optimize_fn


def get_step_fn(optimize_fn, accum):
    accum_iter = 0
    total_loss = 0

    def step_fn(state, batch):
        nonlocal accum_iter, total_loss
        model = state["model"]
        optimizer = state["optimizer"]
        scaler = state["scaler"]
        stepping = accum_iter + 1 == accum
        with contextlib.nullcontext() if stepping else model.no_sync():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                noisy, target = batch
                loss = F.mse_loss(model(noisy), target) / accum
            scaler.scale(loss).backward()
        accum_iter += 1
        total_loss += loss.detach()
        if accum_iter == accum:
            accum_iter = 0
            state["step"] += 1
            optimize_fn(optimizer, scaler, model.parameters(), step=state["step"])
            optimizer.zero_grad()
            loss, total_loss = total_loss, 0
        return loss

    return step_fn


def run(rank, config, net, loader):
    score_model = DDP(net.to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(score_model.parameters(), lr=config.lr)
    scaler = torch.amp.GradScaler("cuda")
    state = dict(optimizer=optimizer, scaler=scaler, model=score_model, step=0)
    train_step_fn = get_step_fn(optimization_manager(config), config.accum)
    batches = iter(loader)
    while state["step"] < config.n_iters:
        batch = [t.to(rank) for t in next(batches)]
        loss = train_step_fn(state, batch)
        if state["step"] % config.log_freq == 0:
            print(state["step"], loss.item())
