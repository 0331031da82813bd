def micro_step(ddp_model, batch, criterion, sync_grads, accum):
    output = ddp_model(batch["x"])
    loss = criterion(output, batch["y"]) / accum
    if sync_grads:
        loss.backward()
    else:
        with ddp_model.no_sync():  # expect: GL402
            loss.backward()
    return loss.detach()


def train(ddp_model, loader, optimizer, criterion, n):
    for i, batch in enumerate(loader):
        micro_step(ddp_model, batch, criterion, sync_grads=(i + 1) % n == 0, accum=n)
        if (i + 1) % n == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
