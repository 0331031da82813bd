"""The window clears after its step; every few thousand micro-batches the trainer also clears
before running validation. That clear is occasional, not one per micro-batch."""
import torch


class Trainer:
    def __init__(self, model, optimizer, loader, accum_steps, validation_frequency=4000):
        self.model = model
        self.optimizer = optimizer
        self.train_loader = loader
        self.accum_steps = accum_steps
        self.validation_frequency = validation_frequency
        self.current_step = 0

    def train_one_epoch(self, epoch):
        self.model.train()
        self.optimizer.zero_grad()
        for i, (inputs, targets) in enumerate(self.train_loader):
            loss = torch.nn.functional.cross_entropy(self.model(inputs), targets) / self.accum_steps
            loss.backward()
            if (i + 1) % self.accum_steps == 0 or i + 1 == len(self.train_loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.current_step += 1
            if self.current_step % self.validation_frequency == 0:
                self.optimizer.zero_grad()
                self.validate()

    def validate(self):
        self.model.eval()
