"""Occupancy-prediction trainer (mmcv-era style): the DDP class is first bound to a local name,
then called to wrap the model; the loop accumulates over a global iteration counter and every
micro-batch's backward all-reduces."""
import contextlib
import torch


def main(local_rank, args, cfg, build_model, build_loader):
    torch.distributed.init_process_group(backend="nccl")
    my_model = build_model(cfg.model).cuda()
    ddp_model_module = torch.nn.parallel.DistributedDataParallel
    my_model = ddp_model_module(my_model, device_ids=[torch.cuda.current_device()], broadcast_buffers=False)
    optimizer = torch.optim.AdamW(my_model.parameters(), lr=cfg.lr)
    train_loader = build_loader(cfg)
    grad_accumulation = args.gradient_accumulation
    global_iter = 0
    for epoch in range(cfg.max_epochs):
        my_model.train()
        for i_iter, data in enumerate(train_loader):
            sync_context = contextlib.nullcontext() if (global_iter + 1) % grad_accumulation == 0 else my_model.no_sync()
            with sync_context:
                result = my_model(imgs=data["img"].cuda(), metas=data["metas"])
                loss = result["loss"] / grad_accumulation
                loss.backward()  # expect: GL401
            if (global_iter + 1) % grad_accumulation == 0:
                torch.nn.utils.clip_grad_norm_(my_model.parameters(), cfg.grad_max_norm)
                optimizer.step()
                optimizer.zero_grad()
            global_iter += 1
