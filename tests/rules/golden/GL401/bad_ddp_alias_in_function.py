import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from model import TransformerLM
from data import distributed_token_loader


def train(rank, world_size, accum=8, steps=20_000):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    torch.cuda.set_device(rank)
    model = DDP(TransformerLM(vocab_size=50257, d_model=1024).to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)
    loader = distributed_token_loader("pile", rank, world_size, batch_size=8)

    for step, (x, y) in enumerate(loader):
        x, y = x.to(rank), y.to(rank)
        sync_context = contextlib.nullcontext() if (step + 1) % accum == 0 else model.no_sync()
        with sync_context:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(x)
            loss = F.cross_entropy(logits.float().view(-1, logits.size(-1)), y.view(-1))
            (loss / accum).backward()  # expect: GL401
        if (step + 1) % accum == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        if (step + 1) // accum >= steps:
            break
    dist.destroy_process_group()


if __name__ == "__main__":
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]))
