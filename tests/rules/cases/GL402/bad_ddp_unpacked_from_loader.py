"""The same loop with the student wrapped in DDP: DDP decides in the forward whether the
backward all-reduces, so a no_sync around the backward alone still syncs every micro-batch."""
from contextlib import nullcontext
from typing import Dict, Optional, Tuple

import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel


def load_student(path: str, device, dequantize: bool) -> Tuple[DistributedDataParallel, Optional[Dict[str, torch.Tensor]]]:
    student = torch.load(path, map_location="cpu").to(device)
    codes = None if dequantize else dict(student.named_buffers())
    student = DistributedDataParallel(student, device_ids=[device])
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
                with student.no_sync() if args.minimize_sync else nullcontext():  # expect: GL402
                    (loss / args.accumulation).backward()
            else:
                (loss / args.accumulation).backward()
                optimizer.step()
                optimizer.zero_grad()
                pending = 0
