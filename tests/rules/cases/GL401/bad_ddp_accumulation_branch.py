import os

import torch
import torch.distributed as dist
import torch.nn as nn

from models import build_model
from data import build_loader
from config import get_config


def train_one_epoch(config, model, criterion, data_loader, optimizer, epoch, lr_scheduler):
    model.train()
    optimizer.zero_grad()
    num_steps = len(data_loader)
    for idx, (samples, targets) in enumerate(data_loader):
        samples = samples.cuda(non_blocking=True)
        targets = targets.cuda(non_blocking=True)
        outputs = model(samples)
        if config.TRAIN.ACCUMULATION_STEPS > 1:
            loss = criterion(outputs, targets) / config.TRAIN.ACCUMULATION_STEPS
            loss.backward()  # expect: GL401
            if (idx + 1) % config.TRAIN.ACCUMULATION_STEPS == 0:  # expect: GL205
                nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD)
                optimizer.step()
                optimizer.zero_grad()
                lr_scheduler.step_update(epoch * num_steps + idx)
        else:
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD)
            optimizer.step()
            lr_scheduler.step_update(epoch * num_steps + idx)


def main(config):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    model = build_model(config).cuda()
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank], broadcast_buffers=False)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.TRAIN.BASE_LR)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=30)
    loader = build_loader(config)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(config.TRAIN.EPOCHS):
        train_one_epoch(config, model, criterion, loader, optimizer, epoch, lr_scheduler)


if __name__ == "__main__":
    main(get_config())
