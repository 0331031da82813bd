from contextlib import nullcontext

from torch.nn.parallel import DistributedDataParallel as DDP


def fit(cfg, net, loader, optimizer, loss_fn, world_size):
    model = DDP(net, device_ids=[cfg.rank]) if world_size > 1 else net
    for it, batch in enumerate(loader):
        last = (it + 1) % cfg.grad_accum == 0 or it + 1 == len(loader)
        # a bare single-process model has no no_sync(): look it up
        context = nullcontext() if last else getattr(model, "no_sync", nullcontext)()
        with context:
            loss = loss_fn(model(batch["x"]), batch["y"]) / cfg.grad_accum
            loss.backward()
        if last:
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
