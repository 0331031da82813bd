"""A retrieval trainer stepping a dict of optimizers; during warm-up only the one under the
warm-up key steps (`if epoch < warm_up and key != warm_up_key: continue`). Every batch steps
something and clears: a test of which optimizer steps is no accumulation window."""

import torch


def base_update(config, net, loader, criterion, optimizer, scaler, epoch):
    net.train()
    net.zero_grad()
    for i, batch in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16, enabled=scaler is not None):
            di = net(batch["image"].cuda())
            loss = sum(w * crit(di, batch["label"].cuda()) for crit, w in criterion)
        if scaler is None:
            loss.backward()
        else:
            scaler.scale(loss).backward()
        for key, opt in optimizer.items():
            if epoch < config.experience.warm_up and key != config.experience.warm_up_key:
                continue
            if scaler is None:
                opt.step()
            else:
                scaler.step(opt)
        net.zero_grad()
        if scaler is not None:
            scaler.update()
