import torch


class Learner:
    """The step method's counter is set from the epoch's index but then counts on by itself:
    windows straddle epochs instead of dropping the tail."""

    def __init__(self, model, optimizer, accumulation_steps=4):
        self.model = model
        self.optimizer = optimizer
        self.accumulation_steps = accumulation_steps
        self.batch_index = 0

    def train_one_step(self, batch):
        loss = self.model(**batch).loss / self.accumulation_steps
        loss.backward()
        if (self.batch_index + 1) % self.accumulation_steps == 0:
            self.optimizer.step()
            self.optimizer.zero_grad()
        return loss

    def train_one_epoch(self, loader, epoch):
        self.model.train()
        for b_idx, batch in enumerate(loader):
            self.batch_index = b_idx
            self.batch_index += epoch * len(loader)
            self.train_one_step(batch)
