"""An MAE-style pretraining engine that steps every `accum_iter` batches and breaks when it
reaches the loader's length: that is where the loop ends anyway, so the epoch's last partial
window is still cleared by the next epoch's zero_grad, unapplied."""
import torch


def train_one_epoch(model, data_loader, optimizer, device, epoch, accum_iter):
    model.train(True)
    optimizer.zero_grad()
    for data_iter_step, (samples, _) in enumerate(data_loader):
        samples = samples.to(device, non_blocking=True)
        with torch.autocast("cuda"):
            loss = model(samples)
        (loss / accum_iter).backward()
        if (data_iter_step + 1) % accum_iter == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
        if (data_iter_step + 1) >= len(data_loader):
            break
