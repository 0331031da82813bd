"""A guardrail classifier's trainer: the step helper returns the loss it reads from the loss
function's dict with `.get`, and the epoch backpropagates it undivided over a window."""
import torch
from tqdm import tqdm


class GuardrailTrainer:
    def __init__(self, model, loss_fn, optimizer, scheduler, train_loader, config):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.train_loader = train_loader
        self.config = config
        self.scaler = torch.amp.GradScaler("cuda") if config.get("fp16") else None

    def _training_step(self, batch):
        outputs = self.model(input_ids=batch["input_ids"], attention_mask=batch["attention_mask"])
        loss_dict = self.loss_fn(logits=outputs.logits, labels=batch["labels"])
        loss = loss_dict.get("total_loss", loss_dict.get("loss", loss_dict))
        return loss, outputs

    def train_epoch(self):
        self.model.train()
        accumulation = self.config.get("gradient_accumulation_steps", 1)
        pbar = tqdm(self.train_loader)
        for step, batch in enumerate(pbar):
            loss, _ = self._training_step(batch)
            loss.backward()  # expect: GL201
            if (step + 1) % accumulation == 0 or step + 1 == len(pbar):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
