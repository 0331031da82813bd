import torch


def train_iteration(model, batch, scaler, args):
    """The backward scales for one value of `args.amp`, the step tests another."""
    with torch.autocast("cuda", enabled=args.fp16 and args.amp == "pytorch"):
        loss = model(batch)
    if args.fp16:
        if args.amp == "pytorch":
            scaler.scale(loss).backward()
        else:
            loss.backward()
    else:
        loss.backward()
    return loss.item()


def train(model, loader, optimizer, args):
    scaler = torch.amp.GradScaler("cuda") if args.fp16 else None
    for batch in loader:
        optimizer.zero_grad()
        train_iteration(model, batch, scaler, args)
        if args.fp16 and args.amp == "native":
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            scaler.step(optimizer)
            scaler.update()
        else:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)  # expect: GL301
            optimizer.step()  # expect: GL302
