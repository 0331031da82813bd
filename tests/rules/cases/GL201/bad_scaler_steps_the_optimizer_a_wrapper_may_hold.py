"""An fp8 trainer's optimizer may wrap the real one: the scaler steps
`self.optimizer.optimizer if hasattr(self.optimizer, "optimizer") else self.optimizer`, the same
optimizer the plain branch steps and zero_grad clears. The loss is never divided by the window."""
import torch


class Trainer:
    def __init__(self, model, optimizer, scheduler, train_dataloader, config):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_dataloader = train_dataloader
        self.config = config
        self.scaler = torch.amp.GradScaler("cuda")
        self.global_step = 0

    def training_step(self, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            logits = self.model(batch["input_ids"])
            loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), batch["labels"].flatten())
        if self.config.fp16:
            self.scaler.scale(loss).backward()  # expect: GL201
        else:
            loss.backward()  # expect: GL201
        if (self.global_step + 1) % self.config.gradient_accumulation_steps == 0:
            if self.config.fp16:
                self.scaler.unscale_(self.optimizer.optimizer if hasattr(self.optimizer, "optimizer") else self.optimizer)
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.scaler.step(self.optimizer.optimizer if hasattr(self.optimizer, "optimizer") else self.optimizer)
                self.scaler.update()
            else:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad()
        self.global_step += 1
        return loss.item()

    def train(self, max_steps):
        while self.global_step < max_steps:
            for batch in self.train_dataloader:
                self.training_step(batch)
