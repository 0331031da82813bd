"""An image-animation script unscales at the window's end under its own repetition of the
window's test, but clips on every micro-batch: the micro-batches before the end clip gradients
still multiplied by the loss scale."""
import torch


def main(unet, train_dataloader, optimizer, lr_scheduler, cfg):
    scaler = torch.amp.GradScaler("cuda")
    accumulation = cfg.gradient_accumulation_steps
    for epoch in range(cfg.num_epochs):
        for step, batch in enumerate(train_dataloader):
            with torch.autocast("cuda", dtype=torch.float16):
                noise_pred = unet(batch["latents"].cuda(), batch["timesteps"].cuda())
                loss = torch.nn.functional.mse_loss(noise_pred.float(), batch["noise"].cuda().float())
            loss = loss / accumulation
            scaler.scale(loss).backward()
            if (step + 1) % accumulation == 0 or step + 1 == len(train_dataloader):
                scaler.unscale_(optimizer)
            if (step + 1) % accumulation == 0 or step + 1 == len(train_dataloader):
                torch.nn.utils.clip_grad_norm_(unet.parameters(), cfg.max_grad_norm)  # expect: GL203, GL301
                scaler.step(optimizer)
                scaler.update()
                lr_scheduler.step()
                optimizer.zero_grad()
