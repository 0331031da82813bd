import torch
from accelerate import Accelerator


def train(args, model, optimizer, loader):
    accelerator = Accelerator(mixed_precision="fp16" if args.fp16 else "no")
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    model.train()
    for epoch in range(args.epochs):
        for batch in loader:
            loss = model(**batch).loss
            accelerator.backward(loss)
            torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=args.max_grad_norm)  # expect: GL301
            optimizer.step()
            optimizer.zero_grad()
