"""A translation trainer's own optimizer wrapper takes the GradScaler as an argument of its
step and steps the torch optimizer through it."""
import torch


class Optim:
    def __init__(self, params, lr):
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self._step = 0

    def step(self, scaler=None):
        self._step += 1
        if scaler is not None:
            scaler.step(self.optimizer)
        else:
            self.optimizer.step()

    def zero_grad(self, set_to_none=True):
        self.optimizer.zero_grad(set_to_none=set_to_none)


class Trainer:
    def __init__(self, model, loader, fp16):
        self.model, self.loader = model, loader
        self.optim = Optim(model.parameters(), lr=1e-3)
        self.grad_scaler = torch.amp.GradScaler("cuda") if fp16 else None

    def train_epoch(self):
        for batch in self.loader:
            with torch.autocast("cuda", enabled=self.grad_scaler is not None):
                loss = self.model(**batch).loss
            if self.grad_scaler is not None:
                self.grad_scaler.scale(loss).backward()
                self.optim.step(scaler=self.grad_scaler)
                self.grad_scaler.update()
            else:
                loss.backward()
                self.optim.step(scaler=None)
            self.optim.zero_grad()
