import contextlib
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForMaskedLM, get_linear_schedule_with_warmup

from mlm_data import distributed_mlm_loader


def train(args):
    dist.init_process_group("nccl")
    torch.cuda.set_device(args.local_rank)
    model = AutoModelForMaskedLM.from_pretrained("roberta-base").cuda()
    model = DDP(model, device_ids=[args.local_rank], find_unused_parameters=False)
    loader = distributed_mlm_loader(args.train_file, batch_size=args.per_device_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)
    total = len(loader) // args.gradient_accumulation_steps * args.epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, args.warmup_steps, total)

    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(loader):
            batch = {k: v.cuda() for k, v in batch.items()}
            sync_context = contextlib.nullcontext() if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(loader) - 1 else model.no_sync()
            with sync_context:
                outputs = model(**batch)
                loss = outputs.loss / args.gradient_accumulation_steps
                loss.backward()  # expect: GL401
            if (step + 1) % args.gradient_accumulation_steps == 0 or step == len(loader) - 1:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
