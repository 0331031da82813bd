from accelerate import Accelerator
from torch.optim import AdamW
from transformers import get_cosine_schedule_with_warmup


class SFTTrainer:
    """Accelerate runs the backward; the trainer still orders its own step and clip."""

    def __init__(self, cfg, model, train_loader):
        self.cfg = cfg
        self.accelerator = Accelerator(gradient_accumulation_steps=cfg.grad_accum, mixed_precision="bf16")
        optimizer = AdamW(model.parameters(), lr=cfg.lr, weight_decay=0.01)
        scheduler = get_cosine_schedule_with_warmup(optimizer, cfg.warmup_steps, cfg.total_steps)
        self.model, self.optimizer, self.train_loader, self.scheduler = self.accelerator.prepare(
            model, optimizer, train_loader, scheduler
        )

    def train_step(self, batch):
        outputs = self.model(**batch)
        loss = outputs.loss
        self.accelerator.backward(loss)
        self.optimizer.step()
        self.scheduler.step()
        self.optimizer.zero_grad()
        return loss.detach()

    def train(self):
        self.model.train()
        for epoch in range(self.cfg.epochs):
            for batch in self.train_loader:
                with self.accelerator.accumulate(self.model):
                    loss = self.train_step(batch)
                    if self.accelerator.sync_gradients:
                        self.accelerator.clip_grad_norm_(self.model.parameters(), self.cfg.max_grad_norm)  # expect: GL101
                if self.accelerator.is_main_process:
                    print(f"epoch {epoch} loss {loss.item():.4f}")
