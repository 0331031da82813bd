import torch
from torch.nn.parallel import DistributedDataParallel


def clip_model_grads(model, max_norm):
    return torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


def apply_gradients(model: DistributedDataParallel, loss, optimizer, boundary, max_norm=1.0):
    """The forward ran in the caller inside no_sync (see train_epoch); only the boundary clips."""
    if boundary:
        loss.backward()
        clip_model_grads(model, max_norm)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    else:
        with model.no_sync():
            loss.backward()


def train_epoch(model, loader, optimizer, accumulation_steps):
    for step, (inputs, targets) in enumerate(loader):
        boundary = (step + 1) % accumulation_steps == 0 or step + 1 == len(loader)
        if boundary:
            loss = torch.nn.functional.cross_entropy(model(inputs), targets) / accumulation_steps
        else:
            with model.no_sync():
                loss = torch.nn.functional.cross_entropy(model(inputs), targets) / accumulation_steps
        apply_gradients(model, loss, optimizer, boundary)
