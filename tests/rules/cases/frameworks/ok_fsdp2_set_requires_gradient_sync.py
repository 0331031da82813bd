import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.distributed.fsdp import fully_shard

from model import Transformer
from data import micro_batches

dist.init_process_group("nccl")
torch.cuda.set_device(int(os.environ["LOCAL_RANK"]))
accum = 4
model = Transformer(n_layers=32, dim=4096).cuda()
for block in model.layers:
    fully_shard(block)
fully_shard(model)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)

for step in range(5000):
    for micro, (x, y) in enumerate(micro_batches(accum, batch_size=2)):
        is_last = micro == accum - 1
        model.set_requires_gradient_sync(is_last)
        logits = model(x)
        loss = F.cross_entropy(logits.flatten(0, 1), y.flatten()) / accum
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad()
