"""In the default "step" mode the window is `accum_steps` micro-batches; the "fast" mode steps
every time. The DDP model syncs every micro-batch of a window."""
import torch
from torch.nn.parallel import DistributedDataParallel


def train(model, loader, optimizer, scaler, accum_steps, local_rank, mode="step"):
    model = DistributedDataParallel(model.cuda(local_rank), device_ids=[local_rank])
    for batch_idx, (x, y) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        scaler.scale(loss / accum_steps).backward()  # expect: GL401
        if mode == "fast" or (batch_idx + 1) % accum_steps == 0 or (batch_idx + 1) == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
