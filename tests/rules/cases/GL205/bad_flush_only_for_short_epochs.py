"""A trainer loop in the style of older transformers Trainers (and the many projects that copied
one): the epoch's end steps only when the whole epoch is shorter than one window."""
import torch


class ContrastiveTrainer:
    def __init__(self, model, optimizer, lr_scheduler, args):
        self.model, self.optimizer, self.lr_scheduler, self.args = model, optimizer, lr_scheduler, args

    def train(self, train_dataloader):
        self.model.zero_grad()
        for epoch in range(int(self.args.num_train_epochs)):
            epoch_iterator = train_dataloader
            steps_in_epoch = len(epoch_iterator)
            for step, inputs in enumerate(epoch_iterator):
                loss = self.model(**inputs).loss
                loss = loss / self.args.gradient_accumulation_steps
                loss.backward()
                if (step + 1) % self.args.gradient_accumulation_steps == 0 or (  # expect: GL205
                    # last step in the epoch, when the epoch is shorter than one window
                    steps_in_epoch <= self.args.gradient_accumulation_steps
                    and (step + 1) == steps_in_epoch
                ):
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
                    self.lr_scheduler.step()
                    self.model.zero_grad()
