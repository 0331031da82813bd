import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from gnn import GraphTransformer
from data import distributed_graph_loader


def maybe_no_sync(model, sync):
    return contextlib.nullcontext() if sync else model.no_sync()


def main(accum=4):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(GraphTransformer(hidden=256, layers=6, num_classes=2).to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = distributed_graph_loader("ogbg-molhiv", batch_size=64)
    for epoch in range(100):
        for i, batch in enumerate(loader):
            batch = batch.to(rank)
            sync = (i + 1) % accum == 0
            with maybe_no_sync(model, sync):
                out = model(batch.x, batch.edge_index, batch.batch)
                loss = F.cross_entropy(out, batch.y) / accum
                loss.backward()
            if sync:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()


if __name__ == "__main__":
    main()
