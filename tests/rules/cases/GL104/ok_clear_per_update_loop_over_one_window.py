"""Each pass of the outer loop is one update: it clears, runs the window's K micro-batches and
steps at the last one, so the clear before the inner loop is a clear per window."""
import torch


def train(model, data_iter, optimizer, scaler, max_steps, accum):
    for step in range(max_steps):
        optimizer.zero_grad(set_to_none=True)
        for micro in range(accum):
            x, y = next(data_iter)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = torch.nn.functional.cross_entropy(model(x), y) / accum
            scaler.scale(loss).backward()
            if (micro + 1) % accum == 0:
                scaler.step(optimizer)
                scaler.update()
