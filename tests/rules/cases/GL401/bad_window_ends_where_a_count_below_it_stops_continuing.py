"""A translation fine-tuning script: each batch's loss is divided by the window and
backpropagated, and `if count < N: continue` skips the rest of the iteration until N batches
are in, in both the fp16 and the fp32 branch; the DDP model all-reduces every one of them. The
scheduler after both branches runs once per update, as the step does."""
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def train(model, loader, optimizer, scheduler, scaler, args, gpu):
    model = DDP(model.to(gpu), device_ids=[gpu])
    count = 0
    for batch in loader:
        if count == 0:
            optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", enabled=args.fp16):
            loss = model(**batch).loss
        if args.fp16:
            loss = loss / args.multistep_optimizer_steps
            scaler.scale(loss).backward()  # expect: GL401
            count += 1
            if count < args.multistep_optimizer_steps:
                continue
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_gradient_clip_value)
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = loss / args.multistep_optimizer_steps
            loss.backward()
            count += 1
            if count < args.multistep_optimizer_steps:
                continue
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_gradient_clip_value)
            optimizer.step()
        scheduler.step()
        count = 0
