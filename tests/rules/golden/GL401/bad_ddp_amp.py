import contextlib
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from models import EfficientNetV2
from data import build_distributed_loader


def main():
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    accum_iter = 2
    model = DDP(EfficientNetV2("s", num_classes=1000).cuda(), device_ids=[rank])
    optimizer = torch.optim.RMSprop(model.parameters(), lr=0.016, alpha=0.9, eps=1e-3, momentum=0.9)
    scaler = torch.amp.GradScaler("cuda")
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    loader = build_distributed_loader("imagenet", batch_size=96)

    for epoch in range(350):
        loader.sampler.set_epoch(epoch)
        for i, (images, target) in enumerate(loader):
            sync_context = contextlib.nullcontext() if (i + 1) % accum_iter == 0 or i + 1 == len(loader) else model.no_sync()
            with sync_context:
                with torch.autocast("cuda", dtype=torch.float16):
                    loss = criterion(model(images.cuda()), target.cuda())
                scaler.scale(loss / accum_iter).backward()  # expect: GL401
            if (i + 1) % accum_iter == 0 or i + 1 == len(loader):  # expect: GL205
                scaler.unscale_(optimizer)
                nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad()


if __name__ == "__main__":
    main()
