import contextlib
import torch
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

from captioning.models import build_captioner


class CaptionRunner:
    def __init__(self, cfg, loader):
        self.cfg = cfg
        self.loader = loader
        self._model = build_captioner(cfg)
        self._wrapped_model = None
        self._optimizer = None

    @property
    def model(self):
        if self._model.device != self.cfg.device:
            self._model = self._model.to(self.cfg.device)
            if self.cfg.distributed:
                if self._wrapped_model is None:
                    self._wrapped_model = DDP(self._model, device_ids=[self.cfg.gpu])
            else:
                self._wrapped_model = self._model
        return self._wrapped_model

    @property
    def optimizer(self):
        if self._optimizer is None:
            self._optimizer = torch.optim.AdamW(self._model.parameters(), lr=self.cfg.lr, weight_decay=0.05)
        return self._optimizer

    def train_epoch(self, epoch):
        self.model.train()
        for i, batch in enumerate(self.loader):
            sync_context = contextlib.nullcontext() if (i + 1) % self.cfg.accum_grad_iters == 0 or i + 1 == len(self.loader) else getattr(self.model, "no_sync", contextlib.nullcontext)()
            with sync_context:
                logits = self.model(batch["image"].cuda(), batch["tokens"].cuda())
                loss = F.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten().cuda())
                (loss / self.cfg.accum_grad_iters).backward()  # expect: GL401
            if (i + 1) % self.cfg.accum_grad_iters == 0 or i + 1 == len(self.loader):  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
