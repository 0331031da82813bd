"""The sync flag is assigned the window's test turned around: every micro-batch but the one
that steps all-reduces, and the one that steps keeps its rank's own gradients."""
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, model, loader, ddp, grad=8):
        self.model = DDP(model) if ddp else model
        self.loader, self.ddp, self.grad = loader, ddp, grad
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=3e-4)
        self.scaler = torch.amp.GradScaler("cuda")

    def train(self):
        self.opt.zero_grad()
        for i, batch in enumerate(self.loader):
            if self.ddp:
                self.model.require_backward_grad_sync = (i + 1) % self.grad != 0  # expect: GL401
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = self.model(**batch).loss / self.grad
            self.scaler.scale(loss).backward()
            if (i + 1) % self.grad == 0 or i + 1 == len(self.loader):
                self.scaler.step(self.opt)
                self.scaler.update()
                self.opt.zero_grad()
