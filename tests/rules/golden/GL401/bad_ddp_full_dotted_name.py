import contextlib
import os

import torch
import torch.nn as nn

from models import build_segformer
from data import ade20k_loader

torch.distributed.init_process_group(backend="nccl")
rank = int(os.environ["LOCAL_RANK"])
device = torch.device("cuda", rank)
update_freq = 2

net = build_segformer("mit_b2", num_classes=150).to(device)
net = nn.SyncBatchNorm.convert_sync_batchnorm(net)
net = torch.nn.parallel.DistributedDataParallel(net, device_ids=[rank], output_device=rank)
optimizer = torch.optim.AdamW(net.parameters(), lr=6e-5, weight_decay=0.01)
criterion = nn.CrossEntropyLoss(ignore_index=255)
loader = ade20k_loader(batch_size=4, distributed=True)

for epoch in range(160):
    for it, (img, seg) in enumerate(loader):
        sync_context = contextlib.nullcontext() if (it + 1) % update_freq == 0 or it + 1 == len(loader) else net.no_sync()
        with sync_context:
            pred = net(img.to(device))
            loss = criterion(pred, seg.to(device))
            loss = loss / update_freq
            loss.backward()  # expect: GL401
        if (it + 1) % update_freq == 0 or it + 1 == len(loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
