"""The same multi-task trainer, the summed loss divided by the number of micro-batches in the
virtual batch before backward."""

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
        micro_batches = self.hparams.virtual_batch_size // self.hparams.batch_size
        for epoch in range(self.hparams.epochs):
            for batch_idx, batch in enumerate(self.loader):
                _, losses = self.model(batch)
                cls_loss, span_loss = losses
                cls_loss = self.hparams.cls_loss_ratio * cls_loss.mean()
                span_loss = self.hparams.span_loss_weight * span_loss.mean()

                loss = 0
                for term in [cls_loss, span_loss]:
                    loss = loss + term
                (loss / micro_batches).backward()
                seen += batch["label"].shape[0]

                if self.hparams.virtual_batch_size == seen or batch_idx == len(self.loader) - 1:
                    nn.utils.clip_grad_norm_(self.model.parameters(), self.hparams.max_norm)
                    self.optimizer.step()
                    self.optimizer.zero_grad()
                    seen = 0
