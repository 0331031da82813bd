"""The engine stops itself after `iters_per_epoch` batches (a sampler that never ends): the
tail of an epoch is never reached, nothing is dropped."""
import torch


def train_one_epoch(model, data_loader, optimizer, device, epoch, accum_iter, iters_per_epoch):
    model.train(True)
    optimizer.zero_grad()
    for data_iter_step, (samples, _) in enumerate(data_loader):
        samples = samples.to(device, non_blocking=True)
        with torch.autocast("cuda"):
            loss = model(samples)
        (loss / accum_iter).backward()
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.step()
            optimizer.zero_grad()
        if (data_iter_step + 1) >= iters_per_epoch:
            break
