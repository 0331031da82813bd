"""An MoE trainer keeps a GradScaler only when mixed precision is asked for and CUDA is there;
the step method scales the backward when it has one, and the window's end tests the scaler again:
the plain branch clips gradients no scaler ever touched."""
import torch
from torch.cuda.amp import GradScaler, autocast


class MoETrainer:
    def __init__(self, config, model, optimizer, train_loader):
        self.config = config
        self.model = model
        self.optimizer = optimizer
        self.train_loader = train_loader
        self.scaler = GradScaler() if config.mixed_precision and torch.cuda.is_available() else None  # expect: GL306

    def train_step(self, batch):
        input_ids, labels = batch["input_ids"].cuda(), batch["labels"].cuda()
        with autocast(enabled=self.scaler is not None):  # expect: GL306
            outputs = self.model(input_ids, labels=labels)
            loss = (outputs.loss + self.config.aux_weight * outputs.aux_loss) / self.config.gradient_accumulation_steps
        if self.scaler is not None:
            self.scaler.scale(loss).backward()
        else:
            loss.backward()
        return loss.item()

    def train(self):
        self.model.train()
        for epoch in range(self.config.epochs):
            for batch_idx, batch in enumerate(self.train_loader):
                self.train_step(batch)
                if (batch_idx + 1) % self.config.gradient_accumulation_steps == 0:  # expect: GL205
                    if self.scaler is not None:
                        self.scaler.unscale_(self.optimizer)
                        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
                        self.scaler.step(self.optimizer)
                        self.scaler.update()
                    else:
                        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.config.grad_clip)
                        self.optimizer.step()
                    self.optimizer.zero_grad(set_to_none=True)
