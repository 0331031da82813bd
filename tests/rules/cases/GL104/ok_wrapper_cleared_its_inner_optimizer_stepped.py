import torch


class Adam:
    """A project wrapper: it builds the torch optimizer, steps it with a learning-rate schedule,
    and clears it."""

    def __init__(self, params, lr, warmup_steps):
        self._optim = torch.optim.Adam(params, lr=lr)
        self.warmup_steps = warmup_steps
        self.step_num = 0

    def zero_grad(self):
        self._optim.zero_grad()

    def step(self):
        self.step_num += 1
        for group in self._optim.param_groups:
            group["lr"] = min(1.0, self.step_num / self.warmup_steps) * group["initial_lr"]
        self._optim.step()


def train_epoch(model, loader, optimizer, scaler, fp16):
    """The loop clears the wrapper and, under fp16, steps the torch optimizer it holds."""
    for text, mel in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16, enabled=fp16):
            loss = model(text.cuda(), mel.cuda())
        if fp16:
            scaler.scale(loss).backward()
            scaler.step(optimizer._optim)
            scaler.update()
        else:
            loss.backward()
            optimizer.step()
