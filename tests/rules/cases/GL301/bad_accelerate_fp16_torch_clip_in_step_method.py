import torch
from accelerate import Accelerator


class PPOTrainer:
    """The micro-batch step runs under accumulate(); the clip is torch's, on scaled gradients."""

    def __init__(self, args, policy, optimizer, scheduler):
        self.args = args
        self.accelerator = Accelerator(
            gradient_accumulation_steps=args.gradient_accumulation_steps,
            mixed_precision="fp16" if args.fp16 else None,
        )
        self.model, self.optimizer, self.lr_scheduler = self.accelerator.prepare(policy, optimizer, scheduler)

    def train_step(self, mini_batch):
        with self.accelerator.accumulate(self.model):
            logits, values = self.model(mini_batch["input_ids"], attention_mask=mini_batch["attention_mask"])
            loss = self.policy_loss(logits, mini_batch) + self.args.vf_coef * self.value_loss(values, mini_batch)
            self.accelerator.backward(loss)
            if self.args.max_grad_norm is not None:
                params = [p for p in self.model.parameters() if p.requires_grad]
                torch.nn.utils.clip_grad_norm_(parameters=params, max_norm=self.args.max_grad_norm)  # expect: GL301, GL203
            self.optimizer.step()
            self.lr_scheduler.step()
            self.optimizer.zero_grad()
        return loss.detach()

    def policy_loss(self, logits, mini_batch):
        raise NotImplementedError

    def value_loss(self, values, mini_batch):
        raise NotImplementedError
