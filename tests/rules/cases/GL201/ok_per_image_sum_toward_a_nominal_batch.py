"""yolov5's convention: the loss is summed over the batch's images (`* bs`) and over the
processes (`* world_size`), and batches accumulate toward a nominal batch of 64 images: a sum
over every image of the window by design, not a mean that should have been divided."""
import torch


def compute_loss(p, targets):
    bs = targets.shape[0]
    lbox = sum(pi[..., :4].abs().mean() for pi in p)
    lobj = sum(pi[..., 4].sigmoid().mean() for pi in p)
    lcls = sum(pi[..., 5:].softmax(-1).mean() for pi in p)
    return (lbox + lobj + lcls) * bs, torch.stack((lbox, lobj, lcls)).detach()


def train(model, loader, optimizer, scaler, batch_size, rank, world_size, epochs, nbs=64):
    accumulate = max(round(nbs / batch_size), 1)
    last_opt_step = -1
    nb = len(loader)
    for epoch in range(epochs):
        for i, (imgs, targets) in enumerate(loader):
            ni = i + nb * epoch
            with torch.autocast("cuda"):
                pred = model(imgs)
                loss, loss_items = compute_loss(pred, targets)
                if rank != -1:
                    loss *= world_size
            scaler.scale(loss).backward()
            if ni - last_opt_step >= accumulate:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()
                last_opt_step = ni
