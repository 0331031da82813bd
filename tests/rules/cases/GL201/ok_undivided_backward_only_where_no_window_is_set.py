"""A course-template trainer: the epoch tells each batch whether to clear and whether to step; the
loss is divided by `accumulation_steps` when it is set, and backpropagated whole only in the
branch where it is not (no window then)."""
import torch


class Trainer:
    def __init__(self, model, criterion, optimizer, lr_scheduler, config, train_loader):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.train_loader = train_loader
        self.accumulation_steps = config.trainer.get("accumulation_steps")
        self.grad_scaler = torch.amp.GradScaler("cuda", enabled=config.trainer.get("amp", False))

    def process_batch(self, batch, zero_grad=True, update=True):
        if zero_grad:
            self.optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            outputs = self.model(**batch)
            batch.update(outputs)
            batch.update(self.criterion(**batch))
        if self.accumulation_steps is not None:
            self.grad_scaler.scale(batch["loss"] / self.accumulation_steps).backward()
        else:
            self.grad_scaler.scale(batch["loss"]).backward()
        if update:
            self.grad_scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
            self.grad_scaler.step(self.optimizer)
            self.grad_scaler.update()
            self.lr_scheduler.step()
        return batch

    def train_epoch(self):
        for batch_idx, batch in enumerate(self.train_loader):
            last = batch_idx + 1 == len(self.train_loader)
            self.process_batch(
                batch,
                zero_grad=batch_idx % self.accumulation_steps == 0,
                update=(batch_idx + 1) % self.accumulation_steps == 0 or last,
            )
