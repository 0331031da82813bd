import logging

import torch

logger = logging.getLogger(__name__)


class Trainer:
    def __init__(self, model, optimizer):
        self.model = model
        self.optimizer = optimizer

    def drop_nonfinite_gradients(self):
        """A parameter whose gradient overflowed is left out of this update; the others still step."""
        for param in self.model.parameters():
            if param.requires_grad and param.grad is not None:
                if not torch.isfinite(param.grad).all():
                    param.grad = None
                    logger.warning("non-finite gradient in %s, skipped", param.shape)

    def fit_batch(self, batch):
        inputs, labels = batch
        loss = torch.nn.functional.mse_loss(self.model(inputs), labels)
        loss.backward()
        self.drop_nonfinite_gradients()
        self.optimizer.step()
        self.optimizer.zero_grad()
        return loss.detach()

    def fit(self, loader, epochs):
        for _ in range(epochs):
            for batch in loader:
                self.fit_batch(batch)
