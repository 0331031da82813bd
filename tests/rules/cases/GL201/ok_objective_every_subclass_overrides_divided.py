"""A domain-generalization library: the base algorithm backpropagates `self.objective(results)`,
which each algorithm subclass overrides, and steps every `gradient_accumulation_steps` batches.
Every override divides its mean loss by the window."""
import torch
import torch.nn.functional as F


class Algorithm:
    def __init__(self, model, optimizer, gradient_accumulation_steps=1):
        self.model = model
        self.optimizer = optimizer
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.batch_idx = 0

    def objective(self, results):
        raise NotImplementedError

    def update(self, batch, is_epoch_end=False):
        x, y = batch
        results = {"y_pred": self.model(x.cuda()), "y_true": y.cuda()}
        should_step = (self.batch_idx + 1) % self.gradient_accumulation_steps == 0 or is_epoch_end
        objective = self.objective(results)
        objective.backward()
        if should_step:
            self.optimizer.step()
            self.model.zero_grad()
        self.batch_idx = 0 if is_epoch_end else self.batch_idx + 1


class ERM(Algorithm):
    def objective(self, results):
        return F.cross_entropy(results["y_pred"], results["y_true"]) / self.gradient_accumulation_steps


class LabelSmoothing(Algorithm):
    def objective(self, results):
        return F.cross_entropy(results["y_pred"], results["y_true"], label_smoothing=0.1) / self.gradient_accumulation_steps


def run_epoch(algorithm, loader):
    last = len(loader) - 1
    for batch_idx, batch in enumerate(loader):
        algorithm.update(batch, is_epoch_end=batch_idx == last)
