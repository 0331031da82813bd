"""A diffusion loop asserts the batch's shape before the forward: an assert is no window test,
and the window the step's test opens accumulates undivided losses."""
import torch


def train(model, data_loader, optimizer, scaler, args):
    len_data = len(data_loader)
    for epoch in range(args.epoch):
        for step, images in enumerate(data_loader):
            B, M = images.shape[:2]
            assert M == args.num_mod, f"expected {args.num_mod} modalities, got {M}"
            t = torch.randint(0, args.timestep, (B,), device=images.device)
            with torch.autocast(device_type="cuda", dtype=torch.float16, enabled=args.use_amp):
                noise = torch.randn_like(images)
                loss = torch.nn.functional.mse_loss(model(images + noise, t), noise)
            scaler.scale(loss).backward()  # expect: GL201
            if (step + 1) % args.accumulate_step == 0 or step == len_data - 1:
                scaler.step(optimizer)
                scaler.update()
                optimizer.zero_grad(set_to_none=True)
