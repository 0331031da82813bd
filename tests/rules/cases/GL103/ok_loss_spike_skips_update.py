import torch


def run_epoch(model, optimizer, loader, accum_steps, spike_factor, max_norm):
    """A window whose mean loss spikes far above its running average is dropped: its gradients
    are cleared and a flag keeps the clip and the step of that window from running."""
    running_avg = 0.0
    window_loss = torch.zeros(())
    for index, batch in enumerate(loader):
        loss = model(batch).mean()
        (loss / accum_steps).backward()
        window_loss += loss.detach()
        if (index + 1) % accum_steps != 0 and index + 1 != len(loader):
            continue
        mean_loss = (window_loss / accum_steps).item()
        window_loss.zero_()
        skip_update = False
        if running_avg > 0 and spike_factor > 0:
            if mean_loss > running_avg * spike_factor:
                print(f"loss spike {mean_loss:.3f}: update skipped")
                skip_update = True
                optimizer.zero_grad(set_to_none=True)
        if not skip_update:
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        running_avg = mean_loss if running_avg == 0 else 0.9 * running_avg + 0.1 * mean_loss
