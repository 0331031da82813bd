"""The trainer clips through a helper method on every micro-batch, and asks a predicate method
(an `if` chain of answers) whether to step: the clip sees partial sums of the window."""
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_dataloader, grad_accum_steps=8, gradient_clipping=1.0):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_dataloader = train_dataloader
        self.grad_accum_steps = grad_accum_steps
        self.gradient_clipping = gradient_clipping

    def _do_grad_accum(self, batch_idx):
        if batch_idx == 0:
            return False
        elif batch_idx % self.grad_accum_steps == 0:
            return True
        return False

    def clip_grad(self, model):
        if self.gradient_clipping is not None:
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.gradient_clipping)  # expect: GL203

    def train_epochs(self, epochs):
        model, optimizer = self.model, self.optimizer
        for epoch in range(epochs):
            model.train()
            for batch_idx, batch in enumerate(self.train_dataloader):
                outputs = model(**batch)
                loss = outputs.loss / self.grad_accum_steps
                loss.backward()
                self.clip_grad(model)
                if self._do_grad_accum(batch_idx) or batch_idx + 1 == len(self.train_dataloader):  # expect: GL205
                    optimizer.step()
                    self.scheduler.step()
                    optimizer.zero_grad()
