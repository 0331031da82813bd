import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from model import Llama
from data import micro_batches

dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(rank)
accum = 8
model = DDP(Llama(n_layers=16).cuda(), device_ids=[rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, fused=True)

for step in range(10_000):
    for micro, (x, y) in enumerate(micro_batches(accum, batch_size=4)):
        last = micro == accum - 1
        ctx = model.no_sync() if not last else contextlib.nullcontext()
        with ctx:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(x)
            loss = F.cross_entropy(logits.float().flatten(0, 1), y.flatten()) / accum
            loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
