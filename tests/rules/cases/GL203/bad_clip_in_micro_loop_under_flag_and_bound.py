import torch


def train(model, optimizer, batches, max_steps, grad_accum_steps, grad_clip):
    """The clip's test bounds the micro-step but picks none of them: it runs on every pass of
    the micro-batch loop, clipping partial sums of the window."""
    for step in range(max_steps):
        optimizer.zero_grad(set_to_none=True)
        for micro_step in range(grad_accum_steps):
            x, y = next(batches)
            loss = model(x, y) / grad_accum_steps
            loss.backward()
            if grad_clip > 0 and micro_step < grad_accum_steps:
                torch.nn.utils.clip_grad_norm_(model.parameters(), grad_clip)  # expect: GL203
        optimizer.step()
