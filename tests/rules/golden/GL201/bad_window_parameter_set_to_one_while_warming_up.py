import torch


def train_one_epoch(model, optimizer, loader, epoch, accumulate, warmup_epochs=1):
    """The warm-up epochs update on every batch; afterwards the caller's window applies, and the
    loss of each of its micro-batches is backpropagated whole."""
    if epoch < warmup_epochs:
        accumulate = 1
    for i, (images, targets) in enumerate(loader):
        loss = torch.nn.functional.cross_entropy(model(images), targets)
        (loss / accumulate).backward()  # expect: GL201
        if (i + 1) % accumulate == 0 or i + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
