import torch


class Trainer:
    def __init__(self, model, optimizer, clip=1.0):
        self.model = model
        self.optimizer = optimizer
        self.clip = clip
        self.scaler = torch.amp.GradScaler("cuda")

    def train_step(self, batch):
        self.optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = self.model(**batch)["loss"]
        self.scaler.scale(loss).backward()
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.item()

    def fit(self, loader):
        for batch in loader:
            self.train_step(batch)
