import torch


def train_vocoder(model, loader, optimizer, scaler, args):
    """The clear opens each window (`batch % N == 0`) and the step closes it (`(batch + 1) % N
    == 0`): every micro-batch of the window reaches the step."""
    for epoch in range(args.epochs):
        for batch, wave in enumerate(loader):
            wave = wave.cuda()
            if batch % args.grad_acc == 0:
                optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model.vocoder_loss(wave) / args.grad_acc
            scaler.scale(loss).backward()
            if (batch + 1) % args.grad_acc == 0 or batch + 1 == len(loader):
                scaler.step(optimizer)
                scaler.update()


def train_vocoder_cleared_after(model, loader, optimizer, scaler, args):
    """The clear shares the step's test but comes after the step."""
    for batch, wave in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = model.vocoder_loss(wave.cuda()) / args.grad_acc
        scaler.scale(loss).backward()
        if (batch + 1) % args.grad_acc == 0 or batch + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
        if (batch + 1) % args.grad_acc == 0 or batch + 1 == len(loader):
            optimizer.zero_grad()
