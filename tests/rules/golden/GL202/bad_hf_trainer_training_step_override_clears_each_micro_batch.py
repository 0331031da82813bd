"""A clinical-notes classifier fine-tuned with transformers' Trainer and four accumulation steps:
the override of `training_step` clears the optimizer's gradients before each backward, so every
step the Trainer takes sees only the window's last micro-batch."""
import torch
from transformers import Trainer, TrainingArguments


class WeightedLossTrainer(Trainer):
    def __init__(self, *args, class_weights=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = torch.nn.functional.cross_entropy(outputs.logits, labels, weight=self.class_weights)
        return (loss, outputs) if return_outputs else loss

    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with self.compute_loss_context_manager():
            loss = self.compute_loss(model, inputs)
        loss = loss / self.args.gradient_accumulation_steps
        self.accelerator.backward(loss)
        return loss.detach()


def main(model, train_dataset, class_weights):
    args = TrainingArguments(output_dir="out", gradient_accumulation_steps=4, per_device_train_batch_size=8, bf16=True)
    trainer = WeightedLossTrainer(model=model, args=args, train_dataset=train_dataset, class_weights=class_weights)
    trainer.train()
