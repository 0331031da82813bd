import torch


def train(model, optimizer, scaler, loader, accum_steps, max_norm, amp=True, epochs=10):
    """A micro-batch that runs out of memory is dropped: its partial gradients are cleared and the
    loop goes on to the next batch, so that zero_grad never runs before a step."""
    backward_steps = 0  # counted across epochs: windows run on from one epoch into the next
    for epoch in range(epochs):
        for batch in loader:
            try:
                with torch.autocast("cuda", dtype=torch.float16, enabled=amp):
                    loss = model(**batch) / accum_steps
                scaler.scale(loss).backward()
            except RuntimeError as error:
                if "out of memory" in str(error):
                    torch.cuda.empty_cache()
                    optimizer.zero_grad()
                    continue
                else:
                    raise
            backward_steps += 1
            if backward_steps % accum_steps > 0:
                continue
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
