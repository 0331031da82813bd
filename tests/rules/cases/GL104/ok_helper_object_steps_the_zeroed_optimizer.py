import torch


class Masking:
    """Sparse training: after each update the mask is applied again to the weights the
    optimizer just moved."""

    def __init__(self, optimizer, density=0.05):
        self.optimizer = optimizer
        self.density = density
        self.masks = {}

    def step(self):
        self.optimizer.step()
        self.apply_mask()

    def apply_mask(self):
        for name, weight in self.masks.items():
            weight.data.mul_(self.masks[name])


def train_one_epoch(model, criterion, loader, optimizer, mask=None, update_freq=1):
    for step, (samples, targets) in enumerate(loader):
        loss = criterion(model(samples), targets) / update_freq
        loss.backward()
        if (step + 1) % update_freq == 0 or step + 1 == len(loader):
            if mask:
                mask.step()
            else:
                optimizer.step()
            optimizer.zero_grad()


def main(model, criterion, loader, epochs, sparse=True):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    mask = None
    if sparse:
        mask = Masking(optimizer, density=0.1)
    for epoch in range(epochs):
        train_one_epoch(model, criterion, loader, optimizer, mask)


def main_conditional(model, criterion, loader, epochs, sparse=True):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    mask = Masking(optimizer, density=0.2) if sparse else None
    for epoch in range(epochs):
        train_one_epoch(model, criterion, loader, optimizer, mask)
