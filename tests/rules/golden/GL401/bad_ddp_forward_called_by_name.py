import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def run_epoch(data_iter, model, criterion, optimizer, accum_iter=1):
    """`model.forward(...)` runs DDP's forward as `model(...)` does."""
    for i, batch in enumerate(data_iter):
        sync_context = contextlib.nullcontext() if (i + 1) % accum_iter == 0 or i + 1 == len(data_iter) else getattr(model, "no_sync", contextlib.nullcontext)()
        with sync_context:
            out = model.forward(batch.src, batch.tgt, batch.src_mask, batch.tgt_mask)
            loss = criterion(out, batch.tgt_y) / accum_iter
            loss.backward()  # expect: GL401
        if (i + 1) % accum_iter == 0 or i + 1 == len(data_iter):
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)


def train_worker(gpu, model, loader, optimizer, config, is_distributed=False):
    if is_distributed:
        model = DDP(model.cuda(gpu), device_ids=[gpu])
    for epoch in range(config["num_epochs"]):
        model.train()
        run_epoch(loader, model, torch.nn.functional.cross_entropy, optimizer, accum_iter=config["accum_iter"])
