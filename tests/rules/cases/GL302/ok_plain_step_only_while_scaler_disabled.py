import torch


class ForecastRunner:
    """The scaler is built disabled unless a half-precision dtype is asked for; the backward
    always goes through it (a disabled scaler hands the loss back as it is), and the plain step
    runs only on the branch where AMP is off."""

    def __init__(self, model, optimizer, dtype=torch.float32):
        self.model = model
        self.optimizer = optimizer
        self.use_amp = dtype in (torch.float16, torch.bfloat16)
        self.amp_ctx = torch.autocast("cuda", dtype=dtype, enabled=self.use_amp)
        self.amp_scaler = torch.amp.GradScaler(enabled=self.use_amp)

    def train_epoch(self, loader, loss_fn):
        for inputs, target in loader:
            with self.amp_ctx:
                loss = loss_fn(self.model(inputs), target)
            self.amp_scaler.scale(loss).backward()
            self._optimizer_step()

    def _optimizer_step(self):
        if self.use_amp:
            self.amp_scaler.step(self.optimizer)
            self.amp_scaler.update()
        else:
            self.optimizer.step()
        self.optimizer.zero_grad()
