import contextlib

import torch
from accelerate import Accelerator


def main(args, model, train_dataloader):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for epoch in range(args.num_train_epochs):
        for step, batch in enumerate(train_dataloader):
            last = (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader)
            with contextlib.nullcontext() if last else accelerator.no_sync(model):
                loss = model(**batch).loss / args.gradient_accumulation_steps
                accelerator.backward(loss)
            if last:
                optimizer.step()
                optimizer.zero_grad()
