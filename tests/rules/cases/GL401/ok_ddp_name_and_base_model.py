import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from model import ViTMAE
from data import distributed_image_loader

dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(rank)
accum_iter = 4
model = ViTMAE(mask_ratio=0.75).cuda()
ddp_model = DDP(model, device_ids=[rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=1.5e-4, betas=(0.9, 0.95))
loader = distributed_image_loader("imagenet/train", batch_size=64)

for epoch in range(800):
    for it, (images, _) in enumerate(loader):
        if (it + 1) % accum_iter != 0:
            with ddp_model.no_sync():
                loss = ddp_model(images.cuda(non_blocking=True)) / accum_iter
                loss.backward()
            continue
        loss = ddp_model(images.cuda(non_blocking=True)) / accum_iter
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 3.0)
        optimizer.step()
        optimizer.zero_grad()
