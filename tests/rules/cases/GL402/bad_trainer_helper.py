import torch


class Trainer:
    def __init__(self, model, optimizer, grad_accum):
        self.model = model
        self.optimizer = optimizer
        self.grad_accum = grad_accum

    def _forward(self, batch):
        out = self.model(**batch)
        return out.loss / self.grad_accum

    def _backward(self, loss, sync):
        if not sync:
            with self.model.no_sync():  # expect: GL402
                loss.backward()
        else:
            loss.backward()

    def train_step(self, batches):
        for micro, batch in enumerate(batches):
            loss = self._forward(batch)
            self._backward(loss, sync=micro == len(batches) - 1)
        self.optimizer.step()
        self.optimizer.zero_grad()
