"""The trainer's own `clip_gradients` is called on the window's first micro-batch
(`step % N == 0`) while the step waits for its last: the report lands on the call, where the
test placed it."""
import torch
from torch.nn.utils import clip_grad_norm_


class BaseTrainer:
    def __init__(self, model, optimizer, accum):
        self.model = model
        self.optimizer = optimizer
        self.accum = accum

    def clip_gradients(self, max_grad_norm):
        clip_grad_norm_(self.model.parameters(), max_grad_norm)

    def training_step(self, batch, step, max_grad_norm):
        loss = self.model(**batch).loss / self.accum
        loss.backward()
        if step % self.accum == 0:
            self.clip_gradients(max_grad_norm)  # expect: GL203
        if (step + 1) % self.accum == 0:  # expect: GL205
            self.optimizer.step()
            self.optimizer.zero_grad()

    def train(self, loader, max_grad_norm=1.0):
        for step, batch in enumerate(loader):
            self.training_step(batch, step, max_grad_norm)
