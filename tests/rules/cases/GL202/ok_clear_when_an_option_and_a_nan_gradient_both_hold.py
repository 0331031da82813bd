"""A dialogue trainer accumulates `batch_split` micro-batches and, with its pointer-generator
option on, drops the window when the gate's gradient turns NaN or infinite: that clear is the
recovery from a bad value, not a clear on every micro-batch."""
import torch


class Trainer:
    def __init__(self, model, optimizer, batch_split=4, pointer_gen=True):
        self.model = model
        self.optimizer = optimizer
        self.batch_split = batch_split
        self.pointer_gen = pointer_gen

    def train_epoch(self, loader):
        for i, (inputs, targets) in enumerate(loader):
            loss = self.model(inputs, targets) / self.batch_split
            loss.backward()
            gate = self.model.generator.gate.weight.grad
            if self.pointer_gen and (torch.isnan(gate[0][0]) or torch.isinf(gate[0][0])):
                self.optimizer.zero_grad()
            if (i + 1) % self.batch_split == 0 or i + 1 == len(loader):
                self.optimizer.step()
                self.optimizer.zero_grad()
