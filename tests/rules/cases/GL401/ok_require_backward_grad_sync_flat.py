import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from model import ConvTasNet
from data import wsj0_mix_loader

dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(rank)
accum = 4
model = DDP(ConvTasNet(num_sources=2).cuda(), device_ids=[rank])
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loader = wsj0_mix_loader(batch_size=4, distributed=True)

for epoch in range(100):
    for i, (mixture, sources) in enumerate(loader):
        sync_now = (i + 1) % accum == 0
        model.require_backward_grad_sync = sync_now
        est = model(mixture.cuda())
        loss = F.l1_loss(est, sources.cuda()) / accum
        loss.backward()
        if sync_now:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
