"""The fixed GPT-2 step: the flag is set before the forward that reads it."""
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, train_loader, optimizer, max_steps, grad_accum_steps, ddp, ddp_local_rank):
    if ddp:
        model = DDP(model, device_ids=[ddp_local_rank])
    for step in range(max_steps):
        optimizer.zero_grad()
        for micro_step in range(grad_accum_steps):
            x, y = train_loader.next_batch()
            if ddp:
                model.require_backward_grad_sync = micro_step == grad_accum_steps - 1
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                logits, loss = model(x.cuda(), y.cuda())
            (loss / grad_accum_steps).backward()
        optimizer.step()

