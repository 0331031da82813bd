import torch
from torch import nn


class Trainer:
    def __init__(self, model, optimizer, scheduler, config):
        self.model, self.optim, self.scheduler, self.config = model, optimizer, scheduler, config

    def train(self, data_loader, epochs):
        scaler = torch.amp.GradScaler("cuda") if self.config.amp else None
        self.model.train()
        for epoch in range(epochs):
            for step, batch in enumerate(data_loader):
                with torch.autocast("cuda", enabled=self.config.amp):
                    loss = self.model(**batch)["loss"] / self.config.accumulation_steps
                scaler.scale(loss).backward() if self.config.amp else loss.backward()
                if (step + 1) % self.config.accumulation_steps == 0:  # expect: GL205
                    if self.config.amp:
                        scaler.unscale_(self.optim)
                        nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
                        scaler.step(self.optim)
                        scaler.update()
                    else:
                        nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
                        self.optim.step()
                    self.scheduler.step()
                    self.model.zero_grad()
