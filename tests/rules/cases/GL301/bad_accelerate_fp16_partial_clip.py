from functools import partial

import torch
from accelerate import Accelerator


def train(args, model, optimizer, loader):
    accelerator = Accelerator(mixed_precision="fp16")
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    clip = partial(torch.nn.utils.clip_grad_norm_, max_norm=args.max_grad_norm)
    for batch in loader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        clip(model.parameters())  # expect: GL301
        optimizer.step()
        optimizer.zero_grad()
