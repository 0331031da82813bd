from torch.distributed.fsdp import FullyShardedDataParallel as FSDP

model = FSDP(model)
for i, batch in enumerate(loader):
    if (i + 1) % grad_acc != 0:
        with model.no_sync():
            loss = model(batch).loss / grad_acc
            loss.backward()
        continue
    loss = model(batch).loss / grad_acc
    loss.backward()
    model.clip_grad_norm_(1.0)
    optimizer.step()
    optimizer.zero_grad()
