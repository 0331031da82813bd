"""Distillation fine-tune: the student comes back from a loader as the first element of a
tuple, wrapped in FSDP by a helper; FSDP reads no_sync in its backward hooks, so wrapping
the backward alone defers the reduce-scatter as intended."""
from contextlib import nullcontext
from typing import Dict, Optional, Tuple

import torch
import torch.nn.functional as F
from torch.distributed.fsdp import FullyShardedDataParallel


def shard_student(model: torch.nn.Module, **options) -> FullyShardedDataParallel:
    return FullyShardedDataParallel(model, use_orig_params=True, **options)


def load_student(path: str, device, dequantize: bool) -> Tuple[FullyShardedDataParallel, Optional[Dict[str, torch.Tensor]]]:
    student = torch.load(path, map_location="cpu")
    codes = None if dequantize else dict(student.named_buffers())
    student = shard_student(student, device_id=device)
    return student, codes


def distill_loss(batch, teacher, student):
    with torch.no_grad():
        target = teacher(**batch).logits
    logits = student(**batch).logits
    return F.kl_div(logits.log_softmax(-1), target.log_softmax(-1), log_target=True, reduction="batchmean")


def finetune(args, teacher, loader, device):
    student, codes = load_student(args.student_path, device, dequantize=args.dequantize)
    optimizer = torch.optim.Adam(student.parameters(), lr=args.lr)
    pending = 0
    for epoch in range(args.epochs):
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            loss = distill_loss(batch, teacher, student)
            pending += 1
            if pending < args.accumulation:
                with student.no_sync() if args.minimize_sync else nullcontext():
                    (loss / args.accumulation).backward()
            else:
                (loss / args.accumulation).backward()
                optimizer.step()
                optimizer.zero_grad()
                pending = 0
