import torch
from tqdm import tqdm


class Trainer:
    def __init__(self, model, loader, rank):
        self.model, self.loader, self.rank = model, loader, rank
        self.accumulation_steps = 1  # the launcher sets it from the global batch size

    def train_epoch(self, optimizer, epoch):
        self.model.train()
        batches = tqdm(enumerate(self.loader), total=len(self.loader), desc=f"epoch {epoch}") if self.rank == 0 else enumerate(self.loader)
        for step, batch in batches:
            loss = self.model(input_ids=batch, labels=batch).loss / self.accumulation_steps
            loss.backward()
            if (step + 1) % self.accumulation_steps != 0:  # expect: GL205
                continue
            optimizer.step()
            optimizer.zero_grad()
            if self.rank == 0:
                batches.set_postfix(loss=loss.item() * self.accumulation_steps)


def main(model, loader, rank, args):
    trainer = Trainer(model, loader, rank)
    trainer.accumulation_steps = args.global_batch_size // args.micro_batch_size
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    for epoch in range(args.epochs):
        trainer.train_epoch(optimizer, epoch)
