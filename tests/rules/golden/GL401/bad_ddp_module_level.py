import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from dataset import ShardedImageDataset
from model import ResNet101

dist.init_process_group("nccl")
local_rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(local_rank)

accum_steps = 4
dataset = ShardedImageDataset("/data/imagenet/train")
sampler = DistributedSampler(dataset, shuffle=True)
loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=8, pin_memory=True)
model = DistributedDataParallel(ResNet101().cuda(local_rank), device_ids=[local_rank])
optimizer = torch.optim.SGD(model.parameters(), lr=0.4, momentum=0.9, weight_decay=1e-4)
criterion = nn.CrossEntropyLoss()

for epoch in range(90):
    sampler.set_epoch(epoch)
    for i, (images, labels) in enumerate(loader):
        images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
        sync_context = contextlib.nullcontext() if (i + 1) % accum_steps == 0 or i + 1 == len(loader) else model.no_sync()
        with sync_context:
            loss = criterion(model(images), labels) / accum_steps
            loss.backward()  # expect: GL401
        if (i + 1) % accum_steps == 0 or i + 1 == len(loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()

dist.destroy_process_group()
