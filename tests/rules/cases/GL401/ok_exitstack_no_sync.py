import os
from contextlib import ExitStack

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from model import DETR
from data import coco_detection_loader

dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
accum_steps = 2
model = DDP(DETR(num_classes=91).to(rank), device_ids=[rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
loader = coco_detection_loader(batch_size=2, distributed=True)

for epoch in range(300):
    for step, (samples, targets) in enumerate(loader):
        last_micro = (step + 1) % accum_steps == 0
        with ExitStack() as stack:
            if not last_micro:
                stack.enter_context(model.no_sync())
            loss_dict = model(samples.to(rank), targets)
            loss = sum(loss_dict.values()) / accum_steps
            loss.backward()
        if last_micro:  # expect: GL205
            nn.utils.clip_grad_norm_(model.parameters(), 0.1)
            optimizer.step()
            optimizer.zero_grad()
