"""The same trainer dividing each chunk's loss by the number of chunks: the step applies the
mean over the chunks."""
import contextlib

import torch
import torch.nn.functional as F


class Trainer:
    def __init__(self, model, optim, scaler):
        self.model = model
        self.optim = optim
        self.scaler = scaler

    def run_step(self, batch):
        self.optim.zero_grad(set_to_none=True)
        if not isinstance(batch, list):
            batch = [batch]
        for i, item in enumerate(batch):
            sync = self.model.no_sync() if i < len(batch) - 1 else contextlib.nullcontext()
            with sync:
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    logits = self.model(item["image"])
                    loss = F.cross_entropy(logits, item["mask"]) / len(batch)
                self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optim)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optim)
        self.scaler.update()
