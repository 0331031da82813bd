import torch


def train(args, model, loader):
    """The summed micro-batch losses of each window are applied at a rate divided by the window
    (`lr / accum_iter`): the update of their mean, through the AMP scaler."""
    optimizer = torch.optim.SGD(model.parameters(), args.lr / args.accum_iter, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(args.epochs):
        for it, (images, labels) in enumerate(loader):
            with torch.autocast("cuda", dtype=torch.float16):
                loss = torch.nn.functional.cross_entropy(model(images), labels)
            scaler.scale(loss).backward()
            if (it + 1) % args.accum_iter == 0:  # expect: GL205
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
