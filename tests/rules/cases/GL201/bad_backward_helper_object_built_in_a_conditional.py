import torch


class ScaledBackward:
    """Backpropagates through the loss scaler the object was given."""

    def __init__(self, scaler):
        self.scaler = scaler

    def __call__(self, loss):
        self.scaler.scale(loss).backward()


def train(model, optimizer, loader, accumulation_steps, amp=True):
    scaler = torch.amp.GradScaler("cuda", enabled=amp)
    backward = ScaledBackward(scaler) if amp else None
    for index, (inputs, targets) in enumerate(loader):
        with torch.autocast("cuda", enabled=amp):
            loss = torch.nn.functional.cross_entropy(model(inputs), targets)
        backward(loss)  # expect: GL201
        if (index + 1) % accumulation_steps == 0 or index + 1 == len(loader):
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
