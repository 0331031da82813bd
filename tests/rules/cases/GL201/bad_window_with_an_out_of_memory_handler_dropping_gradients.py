"""A report-generation trainer that, when a micro-batch runs out of memory, deletes every
`.grad` and clears before moving on; on every other micro-batch the undivided loss accumulates
over the window. The handler's clear reads `.grad` only on the failed path: the window stands."""

import torch


def train_model(model, train_dl, optimizer, scaler, lr_scheduler, accumulation_steps, device):
    model.train()
    for num_batch, batch in enumerate(train_dl):
        images = batch["images"].to(device, non_blocking=True)
        oom = False
        try:
            with torch.autocast(device_type="cuda", dtype=torch.float16):
                total_loss = model(images, batch["targets"])
            scaler.scale(total_loss).backward()  # expect: GL201
        except RuntimeError as e:
            if "out of memory" in str(e):
                oom = True
            else:
                raise
        if oom:
            for p in model.parameters():
                if p.grad is not None:
                    del p.grad
            torch.cuda.empty_cache()
            optimizer.zero_grad()
            oom = False
            continue
        if (num_batch + 1) % accumulation_steps == 0:  # expect: GL205
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
    lr_scheduler.step()
