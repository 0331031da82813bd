import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

from flow.transport import create_transport
from flow.models import SiT_XL_2
from flow.data import latent_loader


def main(args):
    dist.init_process_group("nccl")
    rank = int(os.environ["LOCAL_RANK"])
    device = torch.device("cuda", rank)
    model = SiT_XL_2(num_classes=1000).to(device)
    ddp_model = DDP(model, device_ids=[rank], broadcast_buffers=False)
    transport = create_transport(path_type="Linear", prediction="velocity")
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0)
    scaler = torch.amp.GradScaler("cuda") if args.fp16 else None
    global_step = 0
    for epoch in range(args.epochs):
        for latents, labels in latent_loader(args.data_path, args.batch_size):
            with torch.autocast("cuda", dtype=torch.float16, enabled=scaler is not None):
                loss = transport.training_losses(ddp_model, latents.to(device), dict(y=labels.to(device)))["loss"].mean()
            if scaler:
                scaler.scale(loss / args.grad_accum_steps).backward()  # expect: GL401
            else:
                (loss / args.grad_accum_steps).backward()
            global_step += 1
            if global_step % args.grad_accum_steps == 0:
                if scaler:
                    scaler.step(optimizer)
                    scaler.update()
                else:
                    optimizer.step()
                optimizer.zero_grad(set_to_none=True)  # expect: GL202
