import torch
from accelerate import Accelerator


def train(args, model, optimizer, loader):
    accelerator = Accelerator(mixed_precision="fp16", gradient_accumulation_steps=args.grad_accum)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for batch in loader:
        with accelerator.accumulate(model):
            loss = model(**batch).loss
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                accelerator.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            optimizer.zero_grad()
