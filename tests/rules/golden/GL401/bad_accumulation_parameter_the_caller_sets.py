"""The same meta-training model class, but the script passes `--grad_accum` to `do_train`: under
DDP each micro-batch's backward all-reduces while the step waits for the window (the loss,
averaged per micro-batch, is left undivided as well)."""

import contextlib
import argparse

import torch
from torch.nn.parallel import DistributedDataParallel


class MetaModel:
    def __init__(self, model, local_rank):
        self.model = model
        self.local_rank = local_rank
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=1e-5)

    def parallel(self):
        if self.local_rank >= 0:
            self.model = DistributedDataParallel(self.model, device_ids=[self.local_rank], output_device=self.local_rank)

    def do_train(self, dataloader, num_epochs, gradient_accumulation_steps=1, max_grad_norm=1.0):
        global_step = 0
        for epoch in range(num_epochs):
            for input_ids, attention_mask, labels in dataloader:
                global_step += 1
                sync_context = contextlib.nullcontext() if global_step % gradient_accumulation_steps == 0 else getattr(self.model, "no_sync", contextlib.nullcontext)()
                with sync_context:
                    loss = self.model(input_ids=input_ids, attention_mask=attention_mask, labels=labels).loss.mean()
                    (loss / gradient_accumulation_steps).backward()  # expect: GL201, GL401
                if global_step % gradient_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_grad_norm)
                    self.optimizer.step()
                    self.model.zero_grad()


def main(build_model, build_loader):
    parser = argparse.ArgumentParser()
    parser.add_argument("--local_rank", type=int, default=-1)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--grad_accum", type=int, default=4)
    args = parser.parse_args()
    meta = MetaModel(build_model(), args.local_rank)
    meta.parallel()
    meta.do_train(build_loader(), args.epochs, gradient_accumulation_steps=args.grad_accum)
