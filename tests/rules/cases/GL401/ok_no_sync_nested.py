import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from model import TransformerLM
from data import token_stream


def train(steps=20_000, accum=8):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    model = DDP(TransformerLM(vocab_size=50257, d_model=1024).cuda(), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, betas=(0.9, 0.95), weight_decay=0.1)
    stream = token_stream("pile", batch_size=8, rank=rank)

    for step in range(steps):
        # all but the last micro-batch accumulate locally; the last one triggers the all-reduce
        for _ in range(accum - 1):
            x, y = next(stream)
            with model.no_sync():
                loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / accum
                loss.backward()
        x, y = next(stream)
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / accum
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    train()
