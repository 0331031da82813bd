"""The same script, but the forward returns the loss undivided: the window sums it."""
import torch
from torch import nn


class CFG:
    ACCUMULATE = 2


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 1)

    def forward(self, x, target=None):
        loss = nn.functional.mse_loss(self.fc(x), target)
        return loss, x


def train_loop(model, loader, optimizer):
    global_step = 0
    for idx, (x, y) in enumerate(loader):
        loss, _ = model(x, y)
        loss.backward()  # expect: GL201
        global_step += 1
        if global_step % CFG.ACCUMULATE == 0 or idx + 1 == len(loader):
            optimizer.step()
            optimizer.zero_grad()


for fold in range(5):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters())
    train_loop(model, [], optimizer)
