import torch


def run_epoch(model, optimizer, loader, spike_factor):
    """The spike flag is tested before the spike branch sets it: a spiking batch still has its
    gradients cleared right before the step, which then moves nothing."""
    running_avg = 0.0
    skipped = 0
    for batch in loader:
        loss = model(batch).mean()
        loss.backward()
        skip_update = False
        if running_avg > 0 and loss.item() > running_avg * spike_factor:
            skipped += 1
            optimizer.zero_grad()  # expect: GL103
        if not skip_update:
            optimizer.step()
        optimizer.zero_grad()
        running_avg = 0.9 * running_avg + 0.1 * loss.item()


def run_epoch_flag_cleared_in_branch(model, optimizer, loader, spike_factor):
    """The spike branch sets the flag and then sets it back before the step's test: the step
    still runs right after the clear."""
    running_avg = 0.0
    for batch in loader:
        loss = model(batch).mean()
        loss.backward()
        skip_update = False
        if running_avg > 0 and loss.item() > running_avg * spike_factor:
            skip_update = True
            optimizer.zero_grad()  # expect: GL103
            skip_update = False
        if not skip_update:
            optimizer.step()
        optimizer.zero_grad()
        running_avg = 0.9 * running_avg + 0.1 * loss.item()
