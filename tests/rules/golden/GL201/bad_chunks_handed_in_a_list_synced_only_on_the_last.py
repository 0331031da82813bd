"""A segmentation trainer that receives a list of chunks when accumulation is on: each chunk
runs under the DDP model's `no_sync()` except the last and is backpropagated through the
scaler, then one step follows; the chunks' losses are not divided by their number."""
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
                    loss = F.cross_entropy(logits, item["mask"])
                self.scaler.scale(loss / len(batch)).backward()  # expect: GL201
        self.scaler.unscale_(self.optim)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.optim)
        self.scaler.update()
