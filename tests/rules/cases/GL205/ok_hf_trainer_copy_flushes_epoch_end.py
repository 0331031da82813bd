"""A contrastive-learning Trainer that copies the inner loop of an older transformers Trainer: the
inherited training_step runs forward and backward (dividing the loss by the accumulation steps),
and the epoch's last micro-batch always steps."""
import torch
from torch.utils.data import DataLoader
from transformers import Trainer


class ContrastiveTrainer(Trainer):
    def train(self, model_path=None):
        train_dataloader = self.get_train_dataloader()
        num_train_epochs = int(self.args.num_train_epochs)
        self.create_optimizer_and_scheduler(num_training_steps=len(train_dataloader) * num_train_epochs)
        model = self.model
        if self.args.local_rank != -1:
            model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[self.args.local_rank])
        tr_loss = torch.tensor(0.0).to(self.args.device)
        model.zero_grad()
        for epoch in range(num_train_epochs):
            if isinstance(train_dataloader, DataLoader):
                train_dataloader.sampler.set_epoch(epoch)
            steps_in_epoch = len(train_dataloader)
            for step, inputs in enumerate(train_dataloader):
                if (step + 1) % self.args.gradient_accumulation_steps != 0 and self.args.local_rank != -1:
                    with model.no_sync():
                        tr_loss += self.training_step(model, inputs)
                else:
                    tr_loss += self.training_step(model, inputs)
                if (step + 1) % self.args.gradient_accumulation_steps == 0 or (step + 1) == steps_in_epoch:
                    torch.nn.utils.clip_grad_norm_(model.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
                    self.lr_scheduler.step()
                    model.zero_grad()
        return tr_loss.item()
