"""The running totals are added inside `with torch.no_grad():` (with the metric computations):
an addition recorded with autograd off keeps no graph, loss tensor or not."""
import torch


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n


def train(model, train_loader, optimizer, criterion, device):
    model.train()
    train_loss = 0
    meter = AverageMeter()
    for trajectory, goal_map in train_loader:
        pred = model(trajectory.to(device))
        loss = criterion(pred, goal_map.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            train_loss += loss
            meter.update(loss, trajectory.shape[0])
    return train_loss / len(train_loader), meter.sum / meter.count
