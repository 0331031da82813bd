import torch
import torch.distributed as dist

from torch_utils import misc
from training.networks import EDMPrecond
from training.loss import EDMLoss


def training_loop(dataset_iterator, batch_gpu, num_accumulation_rounds, lr=1e-3, device=torch.device("cuda")):
    net = EDMPrecond(img_resolution=64, img_channels=3).train().requires_grad_(True).to(device)
    loss_fn = EDMLoss()
    optimizer = torch.optim.Adam(net.parameters(), lr=lr, betas=(0.9, 0.999), eps=1e-8)
    ddp = torch.nn.parallel.DistributedDataParallel(net, device_ids=[device], broadcast_buffers=False)
    while True:
        optimizer.zero_grad(set_to_none=True)
        for round_idx in range(num_accumulation_rounds):
            with misc.ddp_sync(ddp, (round_idx == num_accumulation_rounds - 1)):
                images, labels = next(dataset_iterator)
                loss = loss_fn(net=ddp, images=images.to(device), labels=labels.to(device))
                loss.sum().mul(1 / (batch_gpu * num_accumulation_rounds)).backward()
        optimizer.step()
        if dist.get_rank() == 0:
            print(loss.mean().item())
