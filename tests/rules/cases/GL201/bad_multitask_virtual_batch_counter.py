"""A multi-task trainer: each task loss weighed by its ratio, summed term by term, and the step
waits until the samples seen reach the virtual batch size. No term is divided by the window."""

import torch
from torch import nn


class MultiTaskTrainer:
    def __init__(self, hparams, model, loader):
        self.hparams = hparams
        self.model = model
        self.loader = loader
        self.optimizer = torch.optim.Adam(model.parameters(), lr=hparams.lr)

    def train(self):
        seen = 0
        for epoch in range(self.hparams.epochs):
            for batch_idx, batch in enumerate(self.loader):
                _, losses = self.model(batch)
                cls_loss, span_loss = losses
                if cls_loss is not None:
                    cls_loss = self.hparams.cls_loss_ratio * cls_loss.mean()
                if span_loss is not None:
                    span_loss = self.hparams.span_loss_weight * span_loss.mean()

                loss = None
                for term in [cls_loss, span_loss]:
                    if term is not None:
                        loss = loss + term if loss is not None else term
                loss.backward()  # expect: GL201
                seen += batch["label"].shape[0]

                if self.hparams.virtual_batch_size == seen or batch_idx == len(self.loader) - 1:
                    nn.utils.clip_grad_norm_(self.model.parameters(), self.hparams.max_norm)
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    seen = 0
