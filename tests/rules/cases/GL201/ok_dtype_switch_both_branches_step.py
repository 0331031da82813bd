import torch
from torch.amp import GradScaler, autocast


def train(args, model, optimizer, scheduler, loader_train):
    scaler = GradScaler("cuda")
    if args.amp_dtype == "fp32":
        dtype = torch.float32
    elif args.amp_dtype == "fp16":
        dtype = torch.float16
    else:
        dtype = torch.bfloat16
    for epoch in range(args.epochs):
        for batch_idx, data in enumerate(loader_train):
            optimizer.zero_grad()
            data = {k: v.to(args.device) for k, v in data.items()}
            if dtype == torch.float32:
                loss = model(data["units"].float(), gt_spec=data["mel"].float())
            else:
                with autocast(device_type="cuda", dtype=dtype):
                    loss = model(data["units"], gt_spec=data["mel"])
            # full precision or mixed: both sides step on every batch
            if dtype == torch.float32:
                loss.backward()
                optimizer.step()
            else:
                scaler.scale(loss).backward()
                scaler.step(optimizer)
                scaler.update()
            scheduler.step()
