import torch


def train(model, optimizer, loader, writer):
    """The gradient norms are logged from the gradients (read, not copied anywhere), and then
    the gradients are cleared before the step that should have used them."""
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        loss.backward()
        norms = {name: p.grad.norm().item() for name, p in model.named_parameters() if p.grad is not None}
        writer.add_scalars("grad_norm", norms, step)
        optimizer.zero_grad()  # expect: GL103
        optimizer.step()


def train_rescaled_then_cleared(model, optimizer, loader, world_size):
    """Each gradient is divided in place by the world size (its own gradient, not a copy), then
    cleared before the step."""
    for batch in loader:
        model(**batch).loss.backward()
        for p in model.parameters():
            p.grad = p.grad / world_size
        optimizer.zero_grad()  # expect: GL103
        optimizer.step()
