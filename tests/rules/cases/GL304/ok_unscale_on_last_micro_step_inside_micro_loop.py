import contextlib

import torch


def train(model, optimizer, scaler, batches, max_steps, grad_accum_steps, grad_clip, distributed):
    """GPT pre-training: the micro-batch loop unscales and clips on its last pass only (when
    clipping is on), and the scaler steps once after it."""
    step = 0
    while step < max_steps:
        optimizer.zero_grad(set_to_none=True)
        for micro_step in range(grad_accum_steps):
            x, y = next(batches)
            last = micro_step == grad_accum_steps - 1
            sync = contextlib.nullcontext if last or not distributed else model.no_sync
            with sync():
                with torch.autocast("cuda", dtype=torch.float16):
                    _, loss = model(x, y)
                    loss = loss / grad_accum_steps
                scaler.scale(loss).backward()
            if micro_step == grad_accum_steps - 1 and grad_clip > 0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)
        scaler.step(optimizer)
        scaler.update()
        step += 1
