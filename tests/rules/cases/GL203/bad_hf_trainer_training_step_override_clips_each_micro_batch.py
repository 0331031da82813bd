"""A Trainer subclass for a noisy-label classifier that clips inside its own `training_step`:
with `gradient_accumulation_steps=8` each call clips the partial sum of the window so far, while
the Trainer steps once per eight calls."""
import torch
from transformers import Trainer


class RobustTrainer(Trainer):
    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with self.compute_loss_context_manager():
            loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
        loss = loss / self.args.gradient_accumulation_steps
        self.accelerator.backward(loss)
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.5)  # expect: GL203
        return loss.detach()


class SyncedClipTrainer(Trainer):
    """Clips only on the micro-batch that syncs, where the Trainer steps: no finding."""

    def training_step(self, model, inputs, num_items_in_batch=None):
        model.train()
        inputs = self._prepare_inputs(inputs)
        with self.compute_loss_context_manager():
            loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
        self.accelerator.backward(loss / self.args.gradient_accumulation_steps)
        if self.accelerator.sync_gradients:
            self.accelerator.clip_grad_norm_(model.parameters(), 0.5)
        return loss.detach()
