import torch


class ForecastRunner:
    """The scaler is enabled by `use_amp`, but the plain step is chosen by another setting: with
    AMP on and `fused_step` off, the step applies gradients still multiplied by the loss scale."""

    def __init__(self, model, optimizer, use_amp=True, fused_step=False):
        self.model = model
        self.optimizer = optimizer
        self.use_amp = use_amp
        self.fused_step = fused_step
        self.amp_scaler = torch.amp.GradScaler(enabled=self.use_amp)

    def train_epoch(self, loader, loss_fn):
        for inputs, target in loader:
            with torch.autocast("cuda", enabled=self.use_amp):
                loss = loss_fn(self.model(inputs), target)
            self.amp_scaler.scale(loss).backward()
            self._optimizer_step()

    def _optimizer_step(self):
        if self.fused_step:
            self.amp_scaler.step(self.optimizer)
            self.amp_scaler.update()
        else:
            self.optimizer.step()  # expect: GL302
        self.optimizer.zero_grad()
