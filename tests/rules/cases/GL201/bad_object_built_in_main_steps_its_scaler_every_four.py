"""A retrieval script builds its trainer object in `main`; the object's method scales and
backpropagates the contrastive loss, and `main` unscales, clips and steps the object's scaler
only every fourth batch. The loss is never divided by those four batches."""
import torch
import torch.nn.functional as F


class RetrieverTrainer:
    def __init__(self, encoder, lr=2e-6):
        self.model = encoder.cuda()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler()
        self.temperature = 0.05

    def train_step(self, queries, passages):
        with torch.autocast("cuda"):
            q = F.normalize(self.model(queries), dim=-1)
            p = F.normalize(self.model(passages), dim=-1)
            scores = q @ p.T / self.temperature
            loss = F.cross_entropy(scores, torch.arange(len(q), device=q.device))
        self.scaler.scale(loss).backward()
        return loss.item()


def main(encoder, loader, epochs):
    trainer = RetrieverTrainer(encoder)
    for epoch in range(epochs):
        for step, (queries, passages) in enumerate(loader):
            trainer.train_step(queries, passages)  # expect: GL201
            if (step + 1) % 4 == 0 or step + 1 == len(loader):
                trainer.scaler.unscale_(trainer.optimizer)
                torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), 1.0)
                trainer.scaler.step(trainer.optimizer)
                trainer.scaler.update()
                trainer.optimizer.zero_grad()
