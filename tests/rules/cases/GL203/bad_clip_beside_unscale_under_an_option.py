import torch


def train_epoch(model, loader, optimizer, scaler, args):
    """The optional clip shares its `if` with the unscale, per micro-batch: moved to the step
    alone it would clip even where `args.max_norm` switches clipping off, so no fix is offered."""
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = torch.nn.functional.cross_entropy(model(x.cuda()), y.cuda()) / args.accum
        scaler.scale(loss).backward()
        if args.max_norm > 0:
            scaler.unscale_(optimizer)  # expect: GL304
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_norm)  # expect: GL203
        if (i + 1) % args.accum == 0 or i + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
