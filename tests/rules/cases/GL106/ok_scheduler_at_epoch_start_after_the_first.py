import torch


def train_one_epoch(model, loader, optimizer, loss_fn):
    for batch in loader:
        optimizer.zero_grad()
        loss = loss_fn(model(batch), batch.y)
        loss.backward()
        optimizer.step()


def run(model, loader, optimizer, loss_fn, start_epoch, max_num_epochs):
    """Stepped at the start of every epoch but the first: the end of the epoch before."""
    lr_scheduler = torch.optim.lr_scheduler.ExponentialLR(optimizer, gamma=0.99)
    epoch = start_epoch
    while epoch < max_num_epochs:
        if epoch > start_epoch:
            lr_scheduler.step()
        train_one_epoch(model, loader, optimizer, loss_fn)
        epoch += 1
