import torch


class Trainer:
    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)

    def train_epoch(self, loader):
        for batch_idx, batch in enumerate(loader):
            loss = self.model(**batch).loss / self.cfg.accum_steps
            loss.backward()
            if (batch_idx + 1) % self.cfg.accum_steps == 0 or batch_idx + 1 == len(loader):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.clip)  # expect: GL203
                self.optimizer.step()
                self.optimizer.zero_grad()
