import torch


class Trainer:
    def __init__(self, model, cfg, train_loader):
        self.model = model
        self.cfg = cfg
        self.train_loader = train_loader
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr)

    def train_epoch(self):
        for batch_idx, batch in enumerate(self.train_loader):
            loss = self.model(**batch).loss / self.cfg.accum_steps
            loss.backward()
            if (batch_idx + 1) % self.cfg.accum_steps == 0 or batch_idx + 1 == len(self.train_loader):  # expect: GL205
                self.optimizer.step()
                self.optimizer.zero_grad()
