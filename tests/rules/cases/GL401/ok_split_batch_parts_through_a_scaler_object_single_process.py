import torch
from torch import nn


class GradScalerWithClip:
    """MAE-style helper: scaled backward, and on the window's last micro-batch unscale, clip,
    step and update."""

    def __init__(self):
        self._scaler = torch.amp.GradScaler("cuda")

    def __call__(self, loss, optimizer, parameters, clip_grad=None, update_grad=True):
        self._scaler.scale(loss).backward()
        if update_grad:
            if clip_grad is not None:
                self._scaler.unscale_(optimizer)
                torch.nn.utils.clip_grad_norm_(parameters, clip_grad)
            self._scaler.step(optimizer)
            self._scaler.update()


class Experiment:
    def __init__(self, args, rank):
        self.args = args
        self.rank = rank
        self.model = self._build_model()

    def _build_model(self):
        return build_network(self.args).to(self.rank)

    def train(self, loader, epochs):
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=self.args.lr)
        scaler = GradScalerWithClip()
        for epoch in range(epochs):
            self.train_one_epoch(optimizer, loader, scaler)

    def train_one_epoch(self, optimizer, loader, scaler):
        acc_it = self.args.acc_it
        self.model.train()
        optimizer.zero_grad(set_to_none=True)
        for i, (x, y) in enumerate(loader):
            parts = list(zip(x.split(self.args.max_batch), y.split(self.args.max_batch)))
            for xs, ys in parts[:-1]:
                loss = nn.functional.mse_loss(self.model(xs), ys) / acc_it / len(parts)
                scaler(loss, optimizer, self.model.parameters(), clip_grad=1.0, update_grad=False)
            xs, ys = parts[-1]
            loss = nn.functional.mse_loss(self.model(xs), ys) / acc_it / len(parts)
            scaler(loss, optimizer, self.model.parameters(), clip_grad=1.0, update_grad=(i + 1) % acc_it == 0 or i + 1 == len(loader))
            if (i + 1) % acc_it == 0 or i + 1 == len(loader):
                optimizer.zero_grad()
