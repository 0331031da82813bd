import torch


class InputPerturbation:
    """Adversarial training on the inputs: its own optimizer moves a perturbation tensor, so
    clearing that optimizer leaves the model's accumulated gradients alone."""

    def __init__(self, model, optimizer, eps=1e-3):
        self.model = model
        self.optimizer = optimizer
        self.eps = eps

    def attack(self, delta, batch):
        self.optimizer.zero_grad()
        loss = -self.model(batch["x"] + delta, batch["y"])
        loss.backward(inputs=[delta])
        self.optimizer.step()
        delta.data.clamp_(-self.eps, self.eps)


def train_epoch(model, loader, accum_steps, lr=1e-3):
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    delta = torch.zeros(1, 128, requires_grad=True)
    attacker = InputPerturbation(model, torch.optim.SGD([delta], lr=0.01))
    for step, batch in enumerate(loader):
        attacker.attack(delta, batch)
        loss = model(batch["x"] + delta.detach(), batch["y"]) / accum_steps
        loss.backward()
        if (step + 1) % accum_steps == 0 or step + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()
