"""A GPT-2 reproduction's step: the DDP sync flag is switched between the forward and the
backward, one micro-batch too late for DDP, which read it in the forward."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, train_loader, optimizer, get_lr, max_steps, grad_accum_steps, ddp, ddp_local_rank, device):
    if ddp:
        model = DDP(model, device_ids=[ddp_local_rank])
    for step in range(max_steps):
        model.train()
        optimizer.zero_grad()
        loss_accum = 0.0
        for micro_step in range(grad_accum_steps):
            x, y = train_loader.next_batch()
            x, y = x.to(device), y.to(device)
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                logits, loss = model(x, y)
            loss = loss / grad_accum_steps
            loss_accum += loss.detach()
            if ddp:
                model.require_backward_grad_sync = (micro_step == grad_accum_steps - 1)  # expect: GL402
            loss.backward()
        if ddp:
            dist.all_reduce(loss_accum, op=dist.ReduceOp.AVG)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        for group in optimizer.param_groups:
            group["lr"] = get_lr(step)
        optimizer.step()
