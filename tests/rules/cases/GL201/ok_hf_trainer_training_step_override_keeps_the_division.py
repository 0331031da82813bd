"""A Trainer whose `training_step` adds an R-Drop term and otherwise keeps the stock method's
body: the loss is divided by the accumulation steps before any of the backward branches."""
import torch
import torch.nn.functional as F
from transformers import Seq2SeqTrainer
from transformers.utils import is_apex_available

if is_apex_available():
    from apex import amp


class RDropTrainer(Seq2SeqTrainer):
    def training_step(self, model, inputs):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with self.compute_loss_context_manager():
            first = model(**inputs)
            second = model(**inputs)
        kl = F.kl_div(F.log_softmax(first.logits, -1), F.softmax(second.logits, -1), reduction="batchmean")
        loss = (first.loss + second.loss) / 2 + 0.5 * kl
        if self.args.n_gpu > 1:
            loss = loss.mean()
        if self.args.gradient_accumulation_steps > 1 and not self.deepspeed:
            loss = loss / self.args.gradient_accumulation_steps
        if self.do_grad_scaling:
            self.scaler.scale(loss).backward()
        elif self.use_apex:
            with amp.scale_loss(loss, self.optimizer) as scaled_loss:
                scaled_loss.backward()
        elif self.deepspeed:
            loss = self.deepspeed.backward(loss)
        else:
            loss.backward()
        return loss.detach()


class ContrastiveTrainer(Seq2SeqTrainer):
    """Delegates the backward to the stock method after adding its own term."""

    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        loss = outputs.loss + 0.1 * outputs.logits.pow(2).mean()
        return (loss, outputs) if return_outputs else loss

    def training_step(self, model, inputs):
        loss = super().training_step(model, inputs)
        return loss
