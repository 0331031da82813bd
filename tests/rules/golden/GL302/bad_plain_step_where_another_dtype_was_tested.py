"""The same switch, but the step's test asks for another dtype than the one that scales: with
`--dtype fp16` and no `bf16` the plain step runs on scaled gradients."""
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
        if args.dtype == "bf16" and scaler is not None:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)  # expect: GL301
            scaler.step(optimizer)  # expect: GL302
            scaler.update()
        optimizer.zero_grad(set_to_none=True)
