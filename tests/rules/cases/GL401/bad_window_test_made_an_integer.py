"""Post-MLM training of a morphology-aware BERT under mp.spawn: the step counter is handed in and
back, the window is tested as `int(total_steps % (N // world_size)) == 0`, and every micro-batch's
backward all-reduces."""
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

from kinya.data import mlm_loader
from kinya.model import KinyaBertPretrainModel


def train_loop(model, device, optimizer, lr_scheduler, data_loader, accumulation_steps, world_size, total_steps):
    model.train()
    model.zero_grad(set_to_none=True)
    for batch in data_loader:
        with torch.autocast("cuda", dtype=torch.bfloat16):
            losses = model(batch.to(device))
            total_loss = sum(losses) / accumulation_steps
        total_loss.backward()  # expect: GL401
        total_steps += 1
        if int(total_steps % (accumulation_steps // world_size)) == 0:
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()
    return total_steps


def post_mlm_train(rank, world_size, epochs=4, accumulation_steps=160):
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
    device = torch.device("cuda", rank)
    model = DDP(KinyaBertPretrainModel().to(device), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
    lr_scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01, total_iters=2000)
    total_steps = 0
    for epoch in range(epochs):
        total_steps = train_loop(model, device, optimizer, lr_scheduler, mlm_loader(rank, world_size), accumulation_steps, world_size, total_steps)


if __name__ == "__main__":
    mp.spawn(post_mlm_train, args=(4,), nprocs=4)
