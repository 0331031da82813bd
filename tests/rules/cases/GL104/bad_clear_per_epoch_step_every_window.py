"""CLIP retrieval fine-tuning: the gradients are cleared once per epoch, before the pass, but
the scaler steps every K micro-batches of it, so every window's step adds the earlier windows'
gradients again."""
from contextlib import nullcontext

import torch


def train(model, train_loader, optimizer, scaler, lr_scheduler, config, K, max_epoch, device):
    for epoch in range(max_epoch):
        model.train()
        if config.distributed:
            train_loader.sampler.set_epoch(epoch)
        optimizer.zero_grad()
        for i, (image, text) in enumerate(train_loader):
            sync_context = model.no_sync if config.distributed and (i + 1) % K != 0 else nullcontext
            with sync_context():
                with torch.autocast("cuda", enabled=config.use_amp):
                    logits_per_image, _ = model(image.to(device), text.to(device))
                    labels = torch.arange(logits_per_image.size(0), device=device)
                    loss = torch.nn.functional.cross_entropy(logits_per_image, labels) / K
                scaler.scale(loss).backward()
            if (i + 1) % K == 0:  # expect: GL205
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
                scaler.step(optimizer)  # expect: GL104
                scaler.update()
                lr_scheduler.step()
