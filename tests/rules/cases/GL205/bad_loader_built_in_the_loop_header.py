"""An event-argument trainer building its DataLoader in the loop's header; the step waits for
`(batch_idx + 1) % accumulate_step`, and the clear at each epoch's start drops the micro-batches
after the last step. The loader has a length all the same (no fix: writing it would build another)."""

import torch
from torch.utils.data import DataLoader


class EAETrainer:
    def __init__(self, config, model, optimizer, scheduler):
        self.config = config
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler

    def train(self, internal_train_data, collate_fn):
        for epoch in range(1, self.config.max_epoch + 1):
            self.model.train()
            self.optimizer.zero_grad()
            for batch_idx, batch in enumerate(DataLoader(internal_train_data, batch_size=self.config.train_batch_size // self.config.accumulate_step,
                                                         shuffle=True, drop_last=False, collate_fn=collate_fn)):
                loss = self.model(batch)
                loss = loss * (1 / self.config.accumulate_step)
                loss.backward()
                if (batch_idx + 1) % self.config.accumulate_step == 0:  # expect: GL205
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clipping)
                    self.optimizer.step()
                    self.scheduler.step()
                    self.optimizer.zero_grad()
