"""The trainer object divides its loss by the window it was built with; `main` steps the
object's scaler once per window and at the end of the epoch."""
import torch
import torch.nn.functional as F


class RetrieverTrainer:
    def __init__(self, encoder, accum_steps=4):
        self.model = encoder.cuda()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=2e-6)
        self.scaler = torch.amp.GradScaler()
        self.accum_steps = accum_steps

    def train_step(self, queries, passages):
        with torch.autocast("cuda"):
            scores = self.model(queries) @ self.model(passages).T
            loss = F.cross_entropy(scores, torch.arange(len(scores), device=scores.device))
        self.scaler.scale(loss / self.accum_steps).backward()


def main(encoder, loader, epochs):
    trainer = RetrieverTrainer(encoder)
    for epoch in range(epochs):
        for step, (queries, passages) in enumerate(loader):
            trainer.train_step(queries, passages)
            if (step + 1) % trainer.accum_steps == 0 or step + 1 == len(loader):
                trainer.scaler.unscale_(trainer.optimizer)
                torch.nn.utils.clip_grad_norm_(trainer.model.parameters(), 1.0)
                trainer.scaler.step(trainer.optimizer)
                trainer.scaler.update()
                trainer.optimizer.zero_grad()
