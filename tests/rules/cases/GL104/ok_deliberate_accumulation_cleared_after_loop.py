import torch

optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def fit_epoch(loader):
    # one update per epoch: accumulate the whole epoch, then step and clear
    for x, y in loader:
        loss = criterion(model(x), y) / len(loader)
        loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def finetune(loader, steps):
    for s in range(steps):
        loss = criterion(model(loader[s][0]), loader[s][1]) / 4
        loss.backward()
        if s % 4 == 3:
            optimizer.step()
    optimizer.zero_grad()
