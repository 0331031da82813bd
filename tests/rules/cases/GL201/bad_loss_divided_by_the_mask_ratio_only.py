"""Masked-autoencoder pre-training script: the reconstruction loss over the masked patches is
divided by the mask ratio (a weight), never by the window of `accumulate` micro-batches
the optimizer waits for."""
import torch


def pretrain(model, dataloader, optimizer, lr_scheduler, args, device):
    accumulate = args.batch_size // args.micro_batch_size
    seen = 0
    optimizer.zero_grad()
    for epoch in range(args.epochs):
        model.train()
        for images, _ in dataloader:
            seen += 1
            images = images.to(device)
            reconstruction, mask = model(images)
            loss = ((reconstruction - images) ** 2 * mask).mean() / args.mask_ratio
            loss.backward()  # expect: GL201
            if seen % accumulate == 0:
                optimizer.step()
                optimizer.zero_grad()
        lr_scheduler.step()
