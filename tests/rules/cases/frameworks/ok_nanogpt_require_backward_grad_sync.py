import os

import torch
from torch.distributed import init_process_group
from torch.nn.parallel import DistributedDataParallel as DDP

from model import GPT, GPTConfig
from data import get_batch

ddp = int(os.environ.get("RANK", -1)) != -1
gradient_accumulation_steps = 40
if ddp:
    init_process_group(backend="nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    device = f"cuda:{local_rank}"
    torch.cuda.set_device(device)
    gradient_accumulation_steps //= int(os.environ["WORLD_SIZE"])
else:
    device = "cuda"
model = GPT(GPTConfig()).to(device)
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95))
scaler = torch.amp.GradScaler("cuda")
if ddp:
    model = DDP(model, device_ids=[local_rank])
amp_ctx = torch.autocast(device_type="cuda", dtype=torch.float16)

X, Y = get_batch("train")
for it in range(600_000):
    for micro_step in range(gradient_accumulation_steps):
        if ddp:
            # only the last micro-step all-reduces gradients
            model.require_backward_grad_sync = (micro_step == gradient_accumulation_steps - 1)
        with amp_ctx:
            logits, loss = model(X, Y)
            loss = loss / gradient_accumulation_steps
        X, Y = get_batch("train")
        scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
