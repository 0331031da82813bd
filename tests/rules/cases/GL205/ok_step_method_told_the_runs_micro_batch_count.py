"""The step method is told the micro-batch count of the whole run, not the epoch's index: a
window runs on across the epoch boundary, nothing is dropped."""
import torch
from tqdm import tqdm


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_loader, config):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.config = config
        self.global_step = 0
        self.micro_step = 0

    def train_step(self, batch, accumulation_step):
        grad_accum_steps = self.config["training"].get("gradient_accumulation_steps", 1)
        outputs = self.model(input_ids=batch["input_ids"], labels=batch["labels"])
        loss = outputs["loss"] / grad_accum_steps
        if not torch.isfinite(loss):
            return {"loss": float("nan"), "is_step": False}
        loss.backward()
        is_accumulation_step = (accumulation_step + 1) % grad_accum_steps == 0
        if is_accumulation_step:
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.optimizer.zero_grad(set_to_none=True)
            self.scheduler.step()
        return {"loss": loss.item() * grad_accum_steps, "is_step": is_accumulation_step}

    def train_epoch(self, epoch):
        pbar = tqdm(self.train_loader, desc=f"Epoch {epoch + 1}")
        for step, batch in enumerate(pbar):
            metrics = self.train_step(batch, accumulation_step=self.micro_step)
            self.micro_step += 1
            if metrics["is_step"]:
                self.global_step += 1

    def train(self, num_epochs):
        for epoch in range(num_epochs):
            self.train_epoch(epoch)
