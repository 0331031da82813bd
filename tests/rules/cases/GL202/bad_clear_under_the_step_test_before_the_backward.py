import torch


def train_vocoder(model, loader, optimizer, scaler, args):
    """The clear and the step share the window's test, and the clear comes first: on the
    window's last micro-batch the gradients of the micro-batches before it are thrown away."""
    for epoch in range(args.epochs):
        for batch, wave in enumerate(loader):
            wave = wave.cuda()
            if batch % args.grad_acc == 0:
                optimizer.zero_grad()  # expect: GL202
            with torch.autocast("cuda", dtype=torch.float16):
                loss = model.vocoder_loss(wave) / args.grad_acc
            scaler.scale(loss).backward()
            if batch % args.grad_acc == 0 or batch + 1 == len(loader):
                scaler.step(optimizer)
                scaler.update()
