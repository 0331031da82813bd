import contextlib
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from model import GPT, GPTConfig
from data import get_batch

dist.init_process_group(backend="nccl")
ddp_local_rank = int(os.environ["LOCAL_RANK"])
device = f"cuda:{ddp_local_rank}"
torch.cuda.set_device(device)

gradient_accumulation_steps = 8
model = GPT(GPTConfig(n_layer=12, n_head=12, n_embd=768)).to(device)
model = DDP(model, device_ids=[ddp_local_rank])
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95))

for it in range(100_000):
    for micro_step in range(gradient_accumulation_steps):
        X, Y = get_batch("train", device)
        sync_context = contextlib.nullcontext() if micro_step == gradient_accumulation_steps - 1 else model.no_sync()
        with sync_context:
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
            loss.backward()  # expect: GL401
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
