"""SFT with a dtype switch: only the fp16 path scales the loss (asserting the scaler exists), and
the plain step runs where `dtype == "fp16" and scaler is not None` does not hold."""
import torch
import torch.nn.functional as F


def train(model, loader, optimizer, args, device):
    use_amp = device.type == "cuda" and args.dtype in ["bf16", "fp16"]
    scaler = torch.amp.GradScaler("cuda") if (device.type == "cuda" and args.dtype == "fp16") else None
    for step, (X, Y) in enumerate(loader):
        if use_amp and args.dtype == "bf16":
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
                loss = F.cross_entropy(model(X).flatten(0, 1), Y.flatten())
            loss.backward()
        elif use_amp and args.dtype == "fp16":
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                loss = F.cross_entropy(model(X).flatten(0, 1), Y.flatten())
            assert scaler is not None
            scaler.scale(loss).backward()
        else:
            loss = F.cross_entropy(model(X).flatten(0, 1), Y.flatten())
            loss.backward()
        if args.dtype == "fp16" and scaler is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            optimizer.step()
        optimizer.zero_grad(set_to_none=True)
