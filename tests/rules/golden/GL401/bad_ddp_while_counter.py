import itertools
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
batches = itertools.cycle(wsj0_mix_loader(batch_size=4, distributed=True))

micro, updates = 0, 0
while updates < 200_000:
    mixture, sources = next(batches)
    est = model(mixture.cuda())
    loss = F.l1_loss(est, sources.cuda()) / accum
    loss.backward()  # expect: GL401
    micro += 1
    if micro % accum == 0:
        optimizer.step()
        optimizer.zero_grad()
        updates += 1
