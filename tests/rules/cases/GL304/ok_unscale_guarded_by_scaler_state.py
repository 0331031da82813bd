import torch
from torch.amp.grad_scaler import OptState


class Trainer:
    """Clipping and norm logging both may unscale; the clip asks the scaler whether it already did."""

    def __init__(self, model, optimizer, clip_value=None, max_norm=1.0):
        self.model = model
        self.optimizer = optimizer
        self.clip_value = clip_value
        self.max_norm = max_norm
        self.scaler = torch.amp.GradScaler("cuda")

    def clip_values(self):
        if self.clip_value is None:
            return
        state = self.scaler._per_optimizer_states[id(self.optimizer)]
        if state["stage"] is not OptState.UNSCALED:
            self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_value_(self.model.parameters(), self.clip_value)

    def clip_norm(self):
        self.scaler.unscale_(self.optimizer)
        return torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.max_norm)

    def train_epoch(self, loader):
        self.model.train()
        for batch in loader:
            self.optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = self.model(**batch)["loss"]
            self.scaler.scale(loss).backward()
            grad_norm = self.clip_norm()
            self.clip_values()
            self.scaler.step(self.optimizer)
            self.scaler.update()
            yield loss.item(), grad_norm.item()
