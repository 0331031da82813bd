import torch
from torch.nn.parallel import DistributedDataParallel


class Trainer:
    """`self.model` is DDP from the constructor only until setup unwraps it: its role is unknown."""

    def __init__(self, model, optimizer, loader, accum_steps):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = loader
        self.accum_steps = accum_steps

    def setup_single_device(self):
        self.model = self.model.module

    def train_epoch(self):
        for step, (x, y) in enumerate(self.train_loader):
            loss = torch.nn.functional.mse_loss(self.model(x), y) / self.accum_steps
            loss.backward()
            if (step + 1) % self.accum_steps == 0 or step + 1 == len(self.train_loader):
                self.optimizer.step()
                self.optimizer.zero_grad()


def main(net, optimizer, loader, local_rank):
    model = DistributedDataParallel(net.cuda(local_rank), device_ids=[local_rank])
    trainer = Trainer(model, optimizer, loader, accum_steps=4)
    trainer.setup_single_device()
    trainer.train_epoch()
