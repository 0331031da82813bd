import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from llama import Transformer, ModelArgs
from data import sft_loader

IGNORE = -100
dist.init_process_group("nccl")
rank = int(os.environ["LOCAL_RANK"])
torch.cuda.set_device(rank)
grad_accum = 8
model = DDP(Transformer(ModelArgs(dim=2048, n_layers=22, vocab_size=32000)).cuda(), device_ids=[rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)

for step, batch in enumerate(sft_loader("sft.jsonl", batch_size=2, distributed=True)):
    input_ids, labels = batch["input_ids"].cuda(), batch["labels"].cuda()
    sync_context = contextlib.nullcontext() if (step + 1) % grad_accum == 0 else model.no_sync()
    with sync_context:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(input_ids)
        loss_sum = F.cross_entropy(logits.float().flatten(0, 1), labels.flatten(), ignore_index=IGNORE, reduction="sum")
        num_tokens = (labels != IGNORE).sum()
        loss = loss_sum / num_tokens
        loss.backward()  # expect: GL401
    if (step + 1) % grad_accum == 0:
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
