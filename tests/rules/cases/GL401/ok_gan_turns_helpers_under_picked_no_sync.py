from contextlib import nullcontext


def batch_forward(model, batch, info):
    info["loss"] = model(batch)
    return info


def batch_backward(model, info):
    (info["loss"] / info["accum_grad"]).backward()
    return info


def update(model, optimizer, info):
    if (info["batch_idx"] + 1) % info["accum_grad"] == 0:
        optimizer.step()
        optimizer.zero_grad()
    return info


def train_one_epoch_gan(model, optimizer, optimizer_d, loader, info):
    """DDP model with generator and discriminator turns; both turns' helpers run under the context."""
    model.train()
    for batch_idx, batch in enumerate(loader):
        info["batch_idx"] = batch_idx
        if info["ddp"] and (batch_idx + 1) % info["accum_grad"] != 0:
            context = model.no_sync
        else:
            context = nullcontext
        with context():
            batch["turn"] = "discriminator"
            info = batch_forward(model, batch, info)
            info = batch_backward(model, info)
        info = update(model, optimizer_d, info)
        with context():
            batch["turn"] = "generator"
            info = batch_forward(model, batch, info)
            info = batch_backward(model, info)
        info = update(model, optimizer, info)


def main(net, optimizer, optimizer_d, loader, rank):
    import torch
    model = torch.nn.parallel.DistributedDataParallel(net.cuda(rank), device_ids=[rank])
    train_one_epoch_gan(model, optimizer, optimizer_d, loader, {"ddp": True, "accum_grad": 2})
