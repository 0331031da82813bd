import torch


def run_epoch(model, loader, optimizer, scheduler, criterion, epoch, config):
    """The warm-up scheduler is stepped per batch only while the batch count is below its
    length: the code counts its schedule in batches, whatever the update window."""
    n_batches = len(loader)
    num_iter = 0
    model.zero_grad()
    for idx, (partial, gt) in enumerate(loader):
        num_iter += 1
        loss = criterion(model(partial), gt) / config.step_per_update
        loss.backward()
        if num_iter == config.step_per_update or idx + 1 == n_batches:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            num_iter = 0
            optimizer.step()
            model.zero_grad()
        n_itr = epoch * n_batches + idx
        if config.scheduler.type == "GradualWarmup":
            if n_itr < config.scheduler.total_epoch:
                scheduler.step()
