import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


def pretrain(args, model, train_dataloader, optimizer, lr_scheduler, local_rank):
    model = DDP(model.cuda(local_rank), device_ids=[local_rank])
    for epoch in range(args.num_train_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            sync_context = contextlib.nullcontext() if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1 else model.no_sync()
            with sync_context:
                loss = model(**batch).loss / args.gradient_accumulation_steps
                loss.backward()  # expect: GL401
            if (
                (step + 1) % args.gradient_accumulation_steps == 0
                or step == len(train_dataloader) - 1
            ):
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
