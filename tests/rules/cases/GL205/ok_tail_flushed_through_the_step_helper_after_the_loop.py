"""A trainer steps through its own `optimization_step()` when its counter reaches the window,
and calls the same helper after the loop when micro-batches are left over: the tail is
flushed."""
import torch


class DifferentiableTrainer:
    def __init__(self, model, optimizer, scheduler, config):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.config = config

    def train_step(self, batch):
        outputs = self.model(batch["inputs"].cuda())
        loss = torch.nn.functional.mse_loss(outputs, batch["targets"].cuda())
        (loss / self.config.gradient_accumulation_steps).backward()
        return {"loss": loss.item()}

    def optimization_step(self):
        grad_norm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.max_grad_norm)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad()
        return grad_norm

    def train_epoch(self, dataloader):
        accumulation_counter = 0
        for step, batch in enumerate(dataloader):
            self.train_step(batch)
            accumulation_counter += 1
            if accumulation_counter % self.config.gradient_accumulation_steps == 0:
                self.optimization_step()
                accumulation_counter = 0
        if accumulation_counter > 0:
            self.optimization_step()
