"""ICD coding with Accelerate: `run` builds the Accelerator (no accumulation of its own), prepares
the model (DDP when several processes run) and hands both to `train_one_epoch`, which counts the
window by hand around `accelerator.backward(loss)`: every micro-batch all-reduces."""

import contextlib
import torch
from accelerate import Accelerator


def train_one_epoch(model, train_dataloader, optimizer, scheduler, args, accelerator=None):
    model.train()
    for batch_idx, batch in enumerate(train_dataloader):
        batch_gpu = tuple(x.to(accelerator.device) for x in batch)
        sync_context = contextlib.nullcontext() if (batch_idx + 1) % args.gradient_accumulation_steps == 0 else accelerator.no_sync(model)
        with sync_context:
            loss = model(*batch_gpu)
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            accelerator.backward(loss)  # expect: GL401
        if (batch_idx + 1) % args.gradient_accumulation_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
    optimizer.step()
    optimizer.zero_grad()


def run(args, model, train_dataloader):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for epoch in range(args.train_epoch):
        train_one_epoch(model, train_dataloader, optimizer, scheduler, args, accelerator)
