import os
from contextlib import nullcontext

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModelForMaskedLM

from mlm_data import distributed_mlm_loader


def train(args):
    dist.init_process_group("nccl")
    local_rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(local_rank)
    model = DDP(AutoModelForMaskedLM.from_pretrained("roberta-base").cuda(), device_ids=[local_rank])
    loader = distributed_mlm_loader(args.train_file, batch_size=args.per_device_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate, weight_decay=0.01)

    for epoch in range(args.epochs):
        model.train()
        for step, batch in enumerate(loader):
            batch = {k: v.cuda() for k, v in batch.items()}
            do_step = (step + 1) % args.gradient_accumulation_steps == 0 or step == len(loader) - 1
            with (nullcontext() if do_step else model.no_sync()):
                loss = model(**batch).loss / args.gradient_accumulation_steps
                loss.backward()
            if do_step:
                optimizer.step()
                optimizer.zero_grad()
