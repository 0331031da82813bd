"""An ASR trainer whose learning-rate object comes from the project's own factory: each update it
advances the object's count and then has it write the rate into the optimizer it is handed
(`set_lr(optimizer, init_lr)`) before the optimizer steps: the rate is set for this update, not
a torch scheduler stepped early."""
import torch
from torch.nn.utils import clip_grad_norm_

import schedule


class Trainer:
    def __init__(self, model, optimizer, config):
        self.model = model
        self.optimizer = optimizer
        self.init_lr = config["init_lr"]
        self.grad_max_norm = config["grad_max_norm"]
        self.lr_scheduler = schedule.get_scheduler(config["lr_scheduler"])

    def iter_one_epoch(self, loader):
        for batch in loader:
            loss = self.model(**batch).loss
            self.optimizer.zero_grad()
            loss.backward()
            clip_grad_norm_(self.model.parameters(), self.grad_max_norm)
            self.lr_scheduler.step()
            self.lr_scheduler.set_lr(self.optimizer, self.init_lr)
            self.optimizer.step()
