"""Speech toolkit module with two parser classes: the single-GPU parser keeps its model bare,
the distributed one wraps its own `self.model` in DDP. Both accumulate; only the distributed
one all-reduces on every micro-batch."""
import contextlib
import torch
from torch.nn.parallel import DistributedDataParallel as DDP


class Parser:
    def __init__(self, configs, build_model):
        self.model = build_model(configs)
        if torch.cuda.is_available():
            self.model = self.model.to(torch.device("cuda"))
        self.accum_grad = configs["accum_grad"]

    def train(self, loader, optimizer):
        self.model.train()
        for batch_idx, (feats, feats_lengths, target, target_lengths) in enumerate(loader):
            loss = self.model(feats, feats_lengths, target, target_lengths) / self.accum_grad
            loss.backward()
            if (batch_idx + 1) % self.accum_grad == 0 or batch_idx + 1 == len(loader):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
                optimizer.step()
                optimizer.zero_grad()


class DistributedParser:
    def __init__(self, configs, build_model, gpu_id):
        self.gpu_id = gpu_id
        self.model = build_model(configs).to(gpu_id)
        self.model = DDP(self.model, device_ids=[gpu_id], find_unused_parameters=True)
        self.accum_grad = configs["accum_grad"]

    def train(self, loader, optimizer):
        self.model.train()
        for batch_idx, (feats, feats_lengths, target, target_lengths) in enumerate(loader):
            sync_context = contextlib.nullcontext() if (batch_idx + 1) % self.accum_grad == 0 or batch_idx + 1 == len(loader) else self.model.no_sync()
            with sync_context:
                loss = self.model(feats, feats_lengths, target, target_lengths) / self.accum_grad
                loss.backward()  # expect: GL401
            if (batch_idx + 1) % self.accum_grad == 0 or batch_idx + 1 == len(loader):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
                optimizer.step()
                optimizer.zero_grad()
