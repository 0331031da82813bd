import torch
from accelerate import Accelerator
from transformers import get_linear_schedule_with_warmup


def run(args, model, train_loader):
    accelerator = Accelerator()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup, len(train_loader) * args.epochs)
    model, optimizer, train_loader, scheduler = accelerator.prepare(model, optimizer, train_loader, scheduler)
    for epoch in range(args.epochs):
        for batch in train_loader:
            optimizer.zero_grad()
            loss = model(**batch).loss
            accelerator.backward(loss)
            scheduler.step()  # expect: GL106
            optimizer.step()
