"""An image-editing diffusion trainer with two branches: without accumulation it unscales,
clips, steps and updates every batch (right); with accumulation it still unscales every
micro-batch while the step and the update wait for the window, so the second micro-batch's
unscale_ raises."""
import torch


def train_one_epoch(config, model, data_loader, optimizer, scaler):
    accum = config.trainer.accumulate_grad_batches
    for idx, batch in enumerate(data_loader):
        with torch.autocast("cuda", enabled=config.fp16):
            loss, _ = model(batch)
        if accum > 1:
            loss = loss / accum
            scaler.scale(loss).backward()
            if config.trainer.clip_grad > 0.0:
                scaler.unscale_(optimizer)  # expect: GL304
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.trainer.clip_grad)  # expect: GL203
            if (idx + 1) % accum == 0:  # expect: GL205
                scaler.step(optimizer)
                optimizer.zero_grad()
                scaler.update()
        else:
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            if config.trainer.clip_grad > 0.0:
                scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.trainer.clip_grad)
            scaler.step(optimizer)
            scaler.update()


def main(config, model, data_loader, optimizer):
    scaler = torch.amp.GradScaler("cuda")
    for epoch in range(config.epochs):
        train_one_epoch(config, model, data_loader, optimizer, scaler)
