"""The epoch stops after max_iter micro-batches: how many reach the loop is the cap's business."""
import time

import torch


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.delimiter = delimiter
        self.meters = {}

    def log_every(self, iterable, print_freq, header="", max_iter=None):
        start = time.time()
        total = min(len(iterable), max_iter) if max_iter else len(iterable)
        for i, obj in enumerate(iterable):
            yield obj
            if i % print_freq == 0:
                print(f"{header} [{i}/{total}] {time.time() - start:.1f}s")
            if max_iter is not None and i + 1 >= max_iter:
                break


class ScaledStep:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, parameters=None, clip_grad=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()


def train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, loss_scaler, accum_iter=8, max_iter=1000):
    model.train()
    metric_logger = MetricLogger(delimiter="  ")
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(metric_logger.log_every(data_loader, 20, f"Epoch {epoch}", max_iter=max_iter)):
        samples, targets = samples.to(device), targets.to(device)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = criterion(model(samples), targets)
        loss = loss / accum_iter
        loss_scaler(loss, optimizer, parameters=model.parameters(), clip_grad=1.0,
                    update_grad=(data_iter_step + 1) % accum_iter == 0)
        if (data_iter_step + 1) % accum_iter == 0:
            optimizer.zero_grad()


def main(model, criterion, data_loader, device, epochs=100):
    optimizer = torch.optim.AdamW(model.parameters(), lr=1.5e-4)
    loss_scaler = ScaledStep()
    for epoch in range(epochs):
        train_one_epoch(model, criterion, data_loader, optimizer, device, epoch, loss_scaler)
