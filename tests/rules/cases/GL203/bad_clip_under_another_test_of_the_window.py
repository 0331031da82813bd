import torch
from torch.nn.utils import clip_grad_norm_


class Trainer:
    def __init__(self, model, optimizer, scheduler, config):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.config = config

    def training_step(self, batch, step, accum):
        """The clip runs on the window's first micro-batch (`step % N == 0`) while the step
        waits for its last (`(step + 1) % N == 0`): it clips the partial sum of one micro-batch."""
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            loss = self.model(**batch).loss / accum
        loss.backward()
        if step % accum == 0:
            if self.config.max_grad_norm > 0:
                clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)  # expect: GL203
        if (step + 1) % accum == 0:
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad(set_to_none=True)
        return loss

    def train(self, loader):
        step = 0
        for epoch in range(self.config.epochs):
            for batch in loader:
                self.training_step(batch, step, self.config.accum)
                step += 1
