import torch


class Solver:
    """AMP is optional: the loss is scaled only with a scaler, and the optimizer steps directly
    only without one."""

    def __init__(self, model, optimizer, use_fp16, max_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.max_norm = max_norm
        self.scaler = torch.amp.GradScaler("cuda") if use_fp16 else None

    def run_step(self, batch):
        with torch.autocast("cuda", dtype=torch.float16, enabled=self.scaler is not None):
            loss = self.model(**batch)["loss"]
        if self.scaler is not None:
            loss = self.scaler.scale(loss)
        loss.backward()
        if self.scaler is not None:
            self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)
        if self.scaler is None:
            self.optimizer.step()
        else:
            self.scaler.step(self.optimizer)
            self.scaler.update()
        self.optimizer.zero_grad()

    def train(self, loader):
        for batch in loader:
            self.run_step(batch)
