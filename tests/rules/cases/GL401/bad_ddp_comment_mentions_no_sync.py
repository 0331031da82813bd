import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from models import WideResNet
from data import cifar_loader

# TODO: wrap non-final micro-batches in model.no_sync() once we profile the all-reduce cost


def main(accum=4):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(WideResNet(depth=28, widen_factor=10).cuda(rank), device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(200):
        for i, (x, y) in enumerate(cifar_loader(batch_size=32, rank=rank)):
            loss = criterion(model(x.cuda(rank)), y.cuda(rank)) / accum
            loss.backward()  # expect: GL401
            if (i + 1) % accum == 0:
                optimizer.step()
                optimizer.zero_grad()
