import contextlib
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from models import build_model
from data import build_loader


class Trainer:
    def __init__(self, args):
        self.accumulation_steps = args.accumulation_steps
        self.total_steps = args.total_steps
        self.current_step = 1

    def forward_propagation(self, batch, model):
        raise NotImplementedError

    def train(self, args, loader, model, optimizer, scheduler):
        model.train()
        batches = iter(loader)
        while self.current_step <= self.total_steps:
            batch = [t.cuda(args.local_rank) for t in next(batches)]
            sync_context = contextlib.nullcontext() if self.current_step % self.accumulation_steps == 0 else getattr(model, "no_sync", contextlib.nullcontext)()
            with sync_context:
                loss = self.forward_propagation(batch, model)
                loss.backward()  # expect: GL401
            if self.current_step % self.accumulation_steps == 0:
                optimizer.step()
                scheduler.step()
                model.zero_grad()
            self.current_step += 1


class MlmTrainer(Trainer):
    def forward_propagation(self, batch, model):
        src, tgt, seg = batch
        loss, correct, denominator = model(src, tgt, seg)
        return loss / self.accumulation_steps


class ClsTrainer(Trainer):
    def forward_propagation(self, batch, model):
        src, label = batch
        loss = model(src, label)
        return loss / self.accumulation_steps


TRAINERS = {"mlm": MlmTrainer, "cls": ClsTrainer}


def worker(args):
    model = build_model(args)
    if args.dist_train:
        dist.init_process_group("nccl", rank=args.rank, world_size=args.world_size)
        torch.cuda.set_device(args.local_rank)
        model = DistributedDataParallel(model.cuda(args.local_rank), device_ids=[args.local_rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scheduler = torch.optim.lr_scheduler.LinearLR(optimizer, 0.01, 1.0, total_iters=args.warmup)
    trainer = TRAINERS[args.task](args)
    trainer.train(args, build_loader(args), model, optimizer, scheduler)
