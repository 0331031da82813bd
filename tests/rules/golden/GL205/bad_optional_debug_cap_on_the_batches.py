import math
import sys

import torch


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, loss_scaler, args):
    """A sanity-check cap that is off unless the option is set: by default the epoch runs to
    its end and its last partial window is never stepped."""
    model.train(True)
    update_freq = args.update_freq
    max_train_batches = getattr(args, "max_train_batches", None)
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        if max_train_batches is not None and data_iter_step >= max_train_batches:
            print(f"stopping after {max_train_batches} batches")
            break
        samples = samples.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)
        output = model(samples)
        loss = criterion(output, targets)
        loss_value = loss.item()
        if not math.isfinite(loss_value):
            print(f"Loss is {loss_value}, stopping training")
            sys.exit(1)
        loss = loss / update_freq
        loss.backward()
        if (data_iter_step + 1) % update_freq == 0 or data_iter_step + 1 == len(data_loader):  # expect: GL205
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
            optimizer.step()
            optimizer.zero_grad()
