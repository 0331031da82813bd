import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from model import DETR
from data import coco_detection_loader

dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
accum_steps = 2
model = DDP(DETR(num_classes=91).to(rank), device_ids=[rank], find_unused_parameters=True)
param_groups = [{"params": [p for n, p in model.named_parameters() if "backbone" not in n]},
                {"params": [p for n, p in model.named_parameters() if "backbone" in n], "lr": 1e-5}]
optimizer = torch.optim.AdamW(param_groups, lr=1e-4, weight_decay=1e-4)
loader = coco_detection_loader(batch_size=2, distributed=True)

for epoch in range(300):
    for step, (samples, targets) in enumerate(loader):
        sync_context = contextlib.nullcontext() if (step + 1) % accum_steps == 0 or step + 1 == len(loader) else model.no_sync()
        with sync_context:
            loss_dict = model(samples.to(rank), targets)
            loss = sum(loss_dict.values()) / accum_steps
            loss.backward()  # expect: GL401
        if (step + 1) % accum_steps != 0 and step + 1 != len(loader):  # expect: GL205
            continue
        nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        optimizer.step()
        optimizer.zero_grad()
