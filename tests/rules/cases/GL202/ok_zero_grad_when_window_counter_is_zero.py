import torch
from torch.nn.utils import clip_grad_norm_


class PointCloudTrainer:
    """One `run_step` per batch; the step waits for `accum_steps` of them, counted on `self`."""

    def __init__(self, model, optimizer, scheduler, loader, accum_steps=4, clip_grad=None, enable_amp=True):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.loader = loader
        self.accum_steps = accum_steps
        self.clip_grad = clip_grad
        self.scaler = torch.amp.GradScaler("cuda", enabled=enable_amp)
        self._accum_counter = 0

    def train(self, epochs):
        for _ in range(epochs):
            for batch in self.loader:
                self.run_step(batch)

    def run_step(self, batch):
        batch = {k: v.cuda(non_blocking=True) for k, v in batch.items()}
        # clear once, on the window's first micro-batch
        if self._accum_counter == 0:
            self.optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = self.model(batch)["loss"] / self.accum_steps
        self.scaler.scale(loss).backward()
        self._accum_counter += 1
        if self._accum_counter >= self.accum_steps:
            self.scaler.unscale_(self.optimizer)
            if self.clip_grad is not None:
                clip_grad_norm_(self.model.parameters(), self.clip_grad)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            self._accum_counter = 0
