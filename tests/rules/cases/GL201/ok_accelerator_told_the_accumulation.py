import torch
from accelerate import Accelerator


def train(args, model, optimizer, loader):
    """The Accelerator knows the window: its backward() divides the loss by it."""
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for step, batch in enumerate(loader):
        loss = model(**batch).loss
        accelerator.backward(loss)  # expect: GL401
        if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(loader) - 1:
            optimizer.step()
            optimizer.zero_grad()
