"""LUKE style: a local helper returns `model.no_sync()` on the micro-batches before the window's
last (or an `ExitStack()` otherwise), and the trainer wraps only the backward in it (apex or not);
the forward already ran, so DDP all-reduces every micro-batch."""

import contextlib

import torch
from apex import amp


class Trainer:
    def __init__(self, args, model, optimizer, dataloader):
        self.args = args
        self.model = model
        self.optimizer = optimizer
        self.dataloader = dataloader

    def train(self):
        model = self.model
        if self.args.local_rank != -1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[self.args.local_rank], find_unused_parameters=True)
        num_workers = torch.cuda.device_count()

        def maybe_no_sync(step):
            if hasattr(model, "no_sync") and num_workers > 1 and (step + 1) % self.args.gradient_accumulation_steps != 0:
                return model.no_sync()
            else:
                return contextlib.ExitStack()

        model.train()
        for epoch in range(self.args.num_train_epochs):
            for step, batch in enumerate(self.dataloader):
                with maybe_no_sync(step):  # expect: GL402
                    outputs = model(**{k: v.to(self.args.device) for k, v in batch.items()})
                    loss = outputs[0]
                    if self.args.gradient_accumulation_steps > 1:
                        loss = loss / self.args.gradient_accumulation_steps
                    if self.args.fp16:
                        with amp.scale_loss(loss, self.optimizer) as scaled_loss:
                            scaled_loss.backward()
                    else:
                        loss.backward()
                if (step + 1) % self.args.gradient_accumulation_steps == 0:
                    self.optimizer.step()
                    self.optimizer.zero_grad()
            self.optimizer.step()
            self.optimizer.zero_grad()
