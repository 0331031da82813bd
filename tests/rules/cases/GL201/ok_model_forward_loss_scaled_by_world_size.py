"""An ultralytics-style trainer: the model's forward returns the loss (how it reduces it over
the batch is the model's business), multiplied by the number of processes, and batches
accumulate toward a nominal batch size."""
import torch


class BaseTrainer:
    def __init__(self, model, loader, optimizer, args, world_size=1, rank=-1):
        self.model, self.loader, self.optimizer, self.args = model, loader, optimizer, args
        self.world_size, self.rank = world_size, rank
        self.accumulate = max(round(args.nbs / args.batch), 1)
        self.scaler = torch.amp.GradScaler("cuda", enabled=args.amp)

    def optimizer_step(self):
        self.scaler.unscale_(self.optimizer)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), max_norm=10.0)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        self.optimizer.zero_grad()

    def train(self, epochs):
        nb = len(self.loader)
        last_opt_step = -1
        for epoch in range(epochs):
            for i, batch in enumerate(self.loader):
                ni = i + nb * epoch
                with torch.autocast("cuda", enabled=self.args.amp):
                    self.loss, self.loss_items = self.model(batch)
                    if self.rank != -1:
                        self.loss *= self.world_size
                self.scaler.scale(self.loss).backward()
                if ni - last_opt_step >= self.accumulate:
                    self.optimizer_step()
                    last_opt_step = ni
