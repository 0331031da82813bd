import torch


class Trainer:
    """A library-style trainer: the criterion may return (loss, logging items), unpacked into the
    same name; the step method divides each micro-batch's loss by the window it steps after."""

    def __init__(self, net, criterion, optimizer, loader, batch_accumulate=1):
        self.net = net
        self.criterion = criterion
        self.optimizer = optimizer
        self.loader = loader
        self.batch_accumulate = batch_accumulate
        self.scaler = torch.amp.GradScaler("cuda")

    def _get_losses(self, outputs, targets):
        loss = self.criterion(outputs, targets)
        if isinstance(loss, tuple):
            loss, items = loss
        else:
            items = loss.unsqueeze(0).detach()
        return loss, items

    def train_epoch(self, epoch):
        for batch_idx, (inputs, targets) in enumerate(self.loader):
            with torch.autocast("cuda", dtype=torch.float16):
                outputs = self.net(inputs.cuda())
                loss, items = self._get_losses(outputs, targets.cuda())
            self._backward_step(loss, epoch, batch_idx)

    def _backward_step(self, loss, epoch, batch_idx):
        self.scaler.scale(loss / self.batch_accumulate).backward()
        global_step = batch_idx + 1 + len(self.loader) * epoch
        if global_step % self.batch_accumulate == 0:
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
