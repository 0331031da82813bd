"""A trainer builds its schedule in a method returning torch schedulers: stepped before the
optimizer, the first update already runs at the schedule's second value."""
import torch


class Trainer:
    def __init__(self, model, loader, config):
        self.model = model
        self.loader = loader
        self.config = config
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
        self.lr_scheduler = self._init_lr_scheduler(config.lr, self.optimizer)

    def _init_lr_scheduler(self, lr, optimizer):
        if self.config.enable_lr_scheduler:
            return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=self.config.period)
        return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)

    def _apply_step(self):
        self.lr_scheduler.step()  # expect: GL106
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.optimizer.step()
        self.optimizer.zero_grad(set_to_none=True)

    def train(self):
        for epoch in range(self.config.epochs):
            for inputs, labels in self.loader:
                loss = self.model(inputs.cuda(), labels=labels.cuda()).loss
                loss.backward()
                self._apply_step()
