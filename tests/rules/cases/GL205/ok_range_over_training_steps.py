import torch


def train(model, loader, max_iters=600_000, gradient_accumulation_steps=40, lr=6e-4):
    """One run of `max_iters` micro-batches drawn from an endless stream: no epoch, no tail."""
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    batches = iter(loader)
    for it in range(max_iters):
        x, y = next(batches)
        loss = model(x.cuda(), y.cuda()).loss / gradient_accumulation_steps
        loss.backward()
        if (it + 1) % gradient_accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
