import contextlib
import math

import torch
from accelerate import Accelerator
from transformers import get_scheduler


def main(args, model, train_dataloader, eval_dataloader):
    """no_trainer-style script: the Accelerator is not told about accumulation, so its
    backward() does not divide, and the loop steps every `gradient_accumulation_steps` batches."""
    accelerator = Accelerator(mixed_precision=args.mixed_precision, log_with="tensorboard")
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    updates_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    lr_scheduler = get_scheduler("linear", optimizer, 0, args.num_train_epochs * updates_per_epoch)
    model, optimizer, train_dataloader, eval_dataloader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader, lr_scheduler
    )
    for epoch in range(args.num_train_epochs):
        model.train()
        total_loss = 0.0
        for step, batch in enumerate(train_dataloader):
            sync_context = contextlib.nullcontext() if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1 else accelerator.no_sync(model)
            with sync_context:
                outputs = model(**batch)
                loss = outputs.loss
                total_loss += loss.detach().float()
                accelerator.backward(loss / args.gradient_accumulation_steps)  # expect: GL201, GL401
            if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                accelerator.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
        accelerator.print(f"epoch {epoch}: loss {total_loss.item() / len(train_dataloader):.4f}")
