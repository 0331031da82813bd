import contextlib
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from nets import UNet
from data import segmentation_loader


def main(local_rank, epochs=50, accum_iter=4):
    dist.init_process_group("nccl")
    torch.cuda.set_device(local_rank)
    model = DDP(UNet(n_classes=21).cuda(), device_ids=[local_rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    criterion = torch.nn.CrossEntropyLoss(ignore_index=255)
    loader = segmentation_loader("train", batch_size=4)
    for epoch in range(epochs):
        loader.sampler.set_epoch(epoch)
        for it, (image, mask) in enumerate(loader):
            sync_context = contextlib.nullcontext() if not ((it + 1) % accum_iter != 0 and it + 1 != len(loader)) else model.no_sync()
            with sync_context:
                loss = criterion(model(image.cuda()), mask.cuda()) / accum_iter
                loss.backward()  # expect: GL401
            if (it + 1) % accum_iter != 0 and it + 1 != len(loader):
                continue
            optimizer.step()
            optimizer.zero_grad()
