"""The same trainer with the class bound at the module's top, and the window's non-final
micro-batches run under `no_sync()`: one all-reduce per update."""
import contextlib

import torch

DDP_CLASS = torch.nn.parallel.DistributedDataParallel


def main(local_rank, args, cfg, build_model, build_loader):
    torch.distributed.init_process_group(backend="nccl")
    my_model = build_model(cfg.model).cuda()
    my_model = DDP_CLASS(my_model, device_ids=[torch.cuda.current_device()], broadcast_buffers=False)
    optimizer = torch.optim.AdamW(my_model.parameters(), lr=cfg.lr)
    train_loader = build_loader(cfg)
    grad_accumulation = args.gradient_accumulation
    global_iter = 0
    for epoch in range(cfg.max_epochs):
        my_model.train()
        for i_iter, data in enumerate(train_loader):
            last = (global_iter + 1) % grad_accumulation == 0
            with contextlib.nullcontext() if last else my_model.no_sync():
                result = my_model(imgs=data["img"].cuda(), metas=data["metas"])
                loss = result["loss"] / grad_accumulation
                loss.backward()
            if last:
                torch.nn.utils.clip_grad_norm_(my_model.parameters(), cfg.grad_max_norm)
                optimizer.step()
                optimizer.zero_grad()
            global_iter += 1
