"""A pretraining engine over paired views: a logging generator takes each pair from the loader
and yields it on, one per batch, so the loop has the loader's length; the step waits for
`accum_iter` batches with no flush, and the epoch's last partial window is dropped."""
import time

import torch


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.delimiter = delimiter

    def log_every_pair(self, iterable, print_freq, header=None):
        start = time.time()
        for i, [sharp, blurred] in enumerate(iterable):
            yield sharp, blurred
            if i % print_freq == 0:
                print(header, i, time.time() - start)


def train_one_epoch(model, data_loader, optimizer, device, epoch, accum_iter, print_freq=20):
    metric_logger = MetricLogger()
    optimizer.zero_grad()
    for step, (sharp, blurred) in enumerate(metric_logger.log_every_pair(data_loader, print_freq, f"Epoch {epoch}")):
        with torch.autocast("cuda"):
            loss = model(sharp.to(device), blurred.to(device))
        (loss / accum_iter).backward()
        if (step + 1) % accum_iter == 0 or step + 1 == len(data_loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
