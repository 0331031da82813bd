import torch


class Learner:
    def __init__(self, model, optimizer, accumulation_steps=4, fp16=False):
        self.model = model
        self.optimizer = optimizer
        self.accumulation_steps = accumulation_steps
        self.scaler = torch.amp.GradScaler("cuda", enabled=fp16)
        self.batch_index = 0

    def train_one_step(self, batch):
        with torch.autocast("cuda", enabled=self.scaler.is_enabled()):
            loss = self.model(**batch).loss / self.accumulation_steps
        self.scaler.scale(loss).backward()
        if (self.batch_index + 1) % self.accumulation_steps == 0:  # expect: GL205
            self.scaler.step(self.optimizer)
            self.scaler.update()
            self.optimizer.zero_grad()
        return loss

    def train_one_epoch(self, loader):
        self.model.train()
        self.optimizer.zero_grad()
        for b_idx, batch in enumerate(loader):
            self.batch_index = b_idx
            loss = self.train_one_step(batch)
            print(f"step {b_idx}: {loss.item() * self.accumulation_steps:.4f}")
