import torch
from transformers import get_cosine_schedule_with_warmup


class Trainer:
    def __init__(self, model, cfg, total):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)
        self.lr_scheduler = get_cosine_schedule_with_warmup(self.optimizer, cfg.warmup, total)

    def train_epoch(self, loader):
        for batch_idx, batch in enumerate(loader):
            loss = self.model(**batch).loss / self.cfg.accum_steps
            loss.backward()
            if (batch_idx + 1) % self.cfg.accum_steps == 0 or batch_idx + 1 == len(loader):
                self.optimizer.step()
                self.lr_scheduler.step()  # expect: GL204
                self.optimizer.zero_grad()
