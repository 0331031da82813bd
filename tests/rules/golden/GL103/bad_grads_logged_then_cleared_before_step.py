import torch


def train(model, optimizer, loader, writer):
    """The gradient norms are logged from the gradients (read, not copied anywhere), and then
    the gradients are cleared before the step that should have used them."""
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        loss.backward()
        norms = {name: p.grad.norm().item() for name, p in model.named_parameters() if p.grad is not None}
        writer.add_scalars("grad_norm", norms, step)
        optimizer.step()
        optimizer.zero_grad()  # expect: GL103
