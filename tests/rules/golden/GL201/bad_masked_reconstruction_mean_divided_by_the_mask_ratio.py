"""A CIFAR-10 masked-autoencoder script: the large batch is loaded as micro-batches and each
masked squared error (`torch.mean(err ** 2 * mask) / mask_ratio`) is backpropagated until a
global counter reaches a multiple of `steps_per_update`: the mask ratio is no window divisor."""
import torch


def pretrain(model, dataloader, optim, lr_scheduler, args, device):
    steps_per_update = args.batch_size // args.max_device_batch_size
    step_count = 0
    optim.zero_grad()
    for epoch in range(args.total_epoch):
        model.train()
        for img, label in dataloader:
            step_count += 1
            img = img.to(device)
            predicted_img, mask = model(img)
            loss = torch.mean((predicted_img - img) ** 2 * mask) / args.mask_ratio
            (loss / steps_per_update).backward()  # expect: GL201
            if step_count % steps_per_update == 0:
                optim.step()
                optim.zero_grad()
        lr_scheduler.step()
