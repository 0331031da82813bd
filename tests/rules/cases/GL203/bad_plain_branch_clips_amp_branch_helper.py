import torch


def train_one_epoch(config, model, criterion, data_loader, optimizer, epoch, loss_scaler, lr_scheduler):
    """With AMP the scaler object clips at the window's end; without it, the plain branch clips
    after every micro-batch's backward. Without accumulation both step on every batch."""
    accum = config.TRAIN.ACCUMULATION_STEPS
    optimizer.zero_grad()
    for idx, (samples, targets) in enumerate(data_loader):
        with torch.autocast("cuda", enabled=config.AMP):
            outputs = model(samples)
        if accum > 1:
            loss = criterion(outputs, targets) / accum
            if config.AMP:
                loss_scaler(loss, optimizer, clip_grad=config.TRAIN.CLIP_GRAD, parameters=model.parameters(),
                            update_grad=(idx + 1) % accum == 0)
                if (idx + 1) % accum == 0:
                    optimizer.zero_grad()
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD)  # expect: GL203
                if (idx + 1) % accum == 0:  # expect: GL205
                    optimizer.step()
                    optimizer.zero_grad()
            if (idx + 1) % accum == 0:
                lr_scheduler.step_update(epoch * len(data_loader) + idx)
        else:
            loss = criterion(outputs, targets)
            optimizer.zero_grad()
            if config.AMP:
                loss_scaler(loss, optimizer, clip_grad=config.TRAIN.CLIP_GRAD, parameters=model.parameters())
            else:
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), config.TRAIN.CLIP_GRAD)
                optimizer.step()
            lr_scheduler.step_update(epoch * len(data_loader) + idx)


class NativeScalerWithGradNormCount:
    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, clip_grad=None, parameters=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            self._scaler.unscale_(optimizer)
            norm = torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()
            return norm
        return None
