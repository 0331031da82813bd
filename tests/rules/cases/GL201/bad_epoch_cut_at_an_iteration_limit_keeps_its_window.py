"""A detection trainer whose epoch stops early at a configured number of iterations
(`if expected_iterations <= batch_idx: break`): the test ends the pass, it is no window; the
window is the `global_step % batch_accumulate` test of the backward step, whose loss is not
divided by it."""
import torch


class Trainer:
    def __init__(self, net, optimizer, scaler, batch_accumulate, clip_grad_norm=None):
        self.net = net
        self.optimizer = optimizer
        self.scaler = scaler
        self.batch_accumulate = batch_accumulate
        self.clip_grad_norm = clip_grad_norm

    def _backward_step(self, loss, epoch, batch_idx, iterations_per_epoch):
        self.scaler.scale(loss).backward()
        global_step = iterations_per_epoch * epoch + batch_idx + 1
        if global_step % self.batch_accumulate == 0:
            if self.clip_grad_norm:
                self.scaler.unscale_(self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.clip_grad_norm)
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()

    def train_epoch(self, loader, epoch, criterion, expected_iterations):
        self.net.train()
        for batch_idx, (inputs, targets) in enumerate(loader):
            if expected_iterations <= batch_idx:
                break
            with torch.autocast("cuda"):
                loss = criterion(self.net(inputs), targets)
            self._backward_step(loss, epoch, batch_idx, len(loader))  # expect: GL201
