import contextlib
import torch
from mmcv.parallel import MMDistributedDataParallel


def train_one_epoch(config, model, data_loader, optimizer, lr_scheduler):
    model.train()
    optimizer.zero_grad()
    steps = config.accumulation_steps
    for idx, samples in enumerate(data_loader):
        sync_context = contextlib.nullcontext() if (idx + 1) % steps == 0 or idx + 1 == len(data_loader) else model.no_sync()
        with sync_context:
            loss = model(**samples)["loss"] / steps
            loss.backward()  # expect: GL401
        if (idx + 1) % steps == 0 or idx + 1 == len(data_loader):
            optimizer.step()
            optimizer.zero_grad()
            lr_scheduler.step()


def main(config, build_model, data_loader, optimizer, lr_scheduler):
    model = build_model(config).cuda()
    model = MMDistributedDataParallel(model, device_ids=[torch.cuda.current_device()], broadcast_buffers=False)
    for epoch in range(config.epochs):
        train_one_epoch(config, model, data_loader, optimizer, lr_scheduler)
