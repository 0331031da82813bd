import torch
from transformers import get_linear_schedule_with_warmup


def train(args, model, loader, optimizer):
    """The schedule's length is given in micro-batches, so it is stepped on every one."""
    scheduler = get_linear_schedule_with_warmup(
        optimizer,
        num_warmup_steps=args.warmup_steps * args.gradient_accumulation_steps,
        num_training_steps=len(loader) * args.epochs,
    )
    for epoch in range(args.epochs):
        for step, batch in enumerate(loader):
            loss = model(**batch).loss / args.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(loader):
                optimizer.step()
                optimizer.zero_grad()
            scheduler.step()
