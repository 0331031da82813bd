import math

import torch


class DiffusionTrainer:
    """The scaler is made from the constructor's `configs`, which the class keeps as
    `self.configs`: the backward asks whether it exists, the step asks the config. Both tests
    are the same setting."""

    def __init__(self, configs, model, optimizer):
        self.configs = configs
        self.model = model
        self.optimizer = optimizer
        self.amp_scaler = torch.amp.GradScaler("cuda") if configs.train.use_amp else None

    def backward_step(self, compute_loss, num_grad_accumulate):
        with torch.autocast("cuda", enabled=self.configs.train.use_amp):
            loss = compute_loss().mean() / num_grad_accumulate
        if self.amp_scaler is None:
            loss.backward()
        else:
            self.amp_scaler.scale(loss).backward()
        return loss

    def training_step(self, data, loss_fn):
        micro = self.configs.train.microbatch
        num_grad_accumulate = math.ceil(data.shape[0] / micro)
        for start in range(0, data.shape[0], micro):
            chunk = data[start:start + micro]
            self.backward_step(lambda: loss_fn(self.model, chunk), num_grad_accumulate)
        if self.configs.train.use_amp:
            self.amp_scaler.step(self.optimizer)
            self.amp_scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)
