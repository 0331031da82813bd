import torch
from transformers import Trainer


class DistillationTrainer(Trainer):
    def __init__(self, *args, teacher=None, alpha=0.5, temperature=2.0, **kwargs):
        super().__init__(*args, **kwargs)
        self.teacher = teacher.eval()
        self.alpha = alpha
        self.temperature = temperature

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        with torch.no_grad():
            teacher_logits = self.teacher(**inputs).logits
        kd = torch.nn.functional.kl_div(
            torch.log_softmax(outputs.logits / self.temperature, dim=-1),
            torch.softmax(teacher_logits / self.temperature, dim=-1),
            reduction="batchmean",
        ) * self.temperature ** 2
        loss = self.alpha * outputs.loss + (1 - self.alpha) * kd
        return (loss, outputs) if return_outputs else loss

    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with self.compute_loss_context_manager():
            loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
        if self.args.n_gpu > 1:
            loss = loss.mean()
        self.accelerator.backward(loss)
        return loss.detach() / self.args.gradient_accumulation_steps
