"""A hand-written trainer after an older transformers Trainer, its epoch-end test written as one
chained comparison: the end of an epoch flushes only an epoch no longer than one window."""
import torch


class Seq2SeqTrainer:
    def __init__(self, model, optimizer, scheduler, args):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.args = args

    def train(self, train_loader):
        self.model.zero_grad()
        for epoch in range(self.args.num_train_epochs):
            steps_in_epoch = len(train_loader)
            for step, batch in enumerate(train_loader):
                outputs = self.model(**batch)
                loss = outputs.loss / self.args.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % self.args.gradient_accumulation_steps == 0 or (  # expect: GL205
                    self.args.gradient_accumulation_steps >= steps_in_epoch == (step + 1)
                ):
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
                    self.scheduler.step()
                    self.model.zero_grad()
