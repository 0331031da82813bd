"""`train()` wraps the model it is given in DDP (and accumulates under `no_sync()`), while
`main()` loads its own models and runs an online-code loop of its own on one process: the
name `model` is DDP only where `train` binds it."""
import contextlib

import torch
from torch.nn.parallel import DistributedDataParallel
from transformers import AutoModelForQuestionAnswering


def train(args, train_dataloader, model, optimizer):
    if args.local_rank != -1:
        model = DistributedDataParallel(model, device_ids=[args.local_rank])
    for step, batch in enumerate(train_dataloader):
        last = (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader)
        with contextlib.nullcontext() if last else model.no_sync():
            loss = model(**batch).loss / args.gradient_accumulation_steps
            loss.backward()
        if last:
            optimizer.step()
            optimizer.zero_grad()
    return model


def evaluate_loss(args, dataloader, model):
    total = 0.0
    with torch.no_grad():
        for batch in dataloader:
            total += model(**batch).loss.item()
    return total / len(dataloader)


def main(args, portions, eval_dataloader):
    for portion in portions:
        model = AutoModelForQuestionAnswering.from_pretrained(args.model_name_or_path)
        model.to(args.device)
        optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
        for epoch in range(args.num_train_epochs):
            for step, batch in enumerate(portion):
                loss = model(**batch).loss / args.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(portion):
                    optimizer.step()
                    optimizer.zero_grad()
            print(evaluate_loss(args, eval_dataloader, model))
