import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F

from gpt import GPT
from data import token_stream


def wrap_ddp(module):
    local_rank = int(os.environ["LOCAL_RANK"])
    return torch.nn.parallel.DistributedDataParallel(module.cuda(local_rank), device_ids=[local_rank])


def main(grad_accum_steps=8, steps=10000):
    dist.init_process_group("nccl")
    model = GPT(vocab_size=50304, n_layer=12, n_head=12, n_embd=768)
    ddp = wrap_ddp(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, fused=True)
    stream = token_stream("fineweb", batch_size=16, seq_len=1024)
    for step in range(steps):
        for micro_step in range(grad_accum_steps):
            x, y = next(stream)
            sync_context = contextlib.nullcontext() if micro_step == grad_accum_steps - 1 else getattr(ddp, "no_sync", contextlib.nullcontext)()
            with sync_context:
                logits = ddp(x)
                loss = F.cross_entropy(logits.view(-1, logits.size(-1)), y.view(-1)) / grad_accum_steps
                loss.backward()  # expect: GL401
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
