"""A federated pre-training script picks its update by the optimizer's name: `== "sgd"`,
`"fedavg" in name`, `"subscaf" in name`. Each branch steps and then clears; no name takes two
branches, so no clear stands before another branch's step."""
import torch


def train(model, optimizer, scaler, loader, args, grad_accumulation=4):
    for local_step, batch in enumerate(loader, start=1):
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(**batch).loss / grad_accumulation
        scaler.scale(loss).backward()
        if local_step % grad_accumulation != 0:  # expect: GL205
            continue
        if args.optimizer.lower() == "sgd":
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        if "fedavg" in args.optimizer.lower():
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        if not args.per_layer_update and "subscaf" in args.optimizer.lower():
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
