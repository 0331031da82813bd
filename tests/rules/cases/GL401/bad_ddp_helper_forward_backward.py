import os

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from gnn import GraphTransformer
from data import distributed_graph_loader


def forward_backward(model, batch, accum):
    out = model(batch.x, batch.edge_index, batch.batch)
    loss = F.cross_entropy(out, batch.y) / accum
    loss.backward()
    return loss.item() * accum


def main(accum=4):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    model = DDP(GraphTransformer(hidden=256, layers=6, num_classes=2).to(rank), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = distributed_graph_loader("ogbg-molhiv", batch_size=64)
    for epoch in range(100):
        for i, batch in enumerate(loader):
            loss = forward_backward(model, batch.to(rank), accum)  # expect: GL401
            if (i + 1) % accum == 0:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
            if rank == 0 and i % 100 == 0:
                print(f"epoch {epoch} batch {i}: loss {loss:.4f}")


if __name__ == "__main__":
    main()
