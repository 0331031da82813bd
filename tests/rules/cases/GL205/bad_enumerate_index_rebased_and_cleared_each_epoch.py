"""The same rebased step with the gradients cleared as each epoch begins: an epoch ending
inside a window throws its last micro-batches away."""
import torch
from torch.amp import autocast


def train(model, train_loader, optimizer, lr_scheduler, args):
    model.train()
    for epoch in range(args.num_train_epochs):
        optimizer.zero_grad()
        for step, batch in enumerate(train_loader):
            step += 1 + epoch * len(train_loader)
            with autocast("cuda", enabled=args.bf16, dtype=torch.bfloat16):
                loss = model(**batch, return_dict=True)["loss"] / args.gradient_accumulation_steps
            loss.backward()
            if step % args.gradient_accumulation_steps == 0:  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
                optimizer.step()
                optimizer.zero_grad()
                lr_scheduler.step()
