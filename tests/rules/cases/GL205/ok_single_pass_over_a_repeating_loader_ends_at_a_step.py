"""A VLA fine-tuning strategy: one pass over a loader that repeats its dataset forever (no
epoch loop around it), leaving the function right after the step that reaches `max_steps`. The
run ends at a step, so no micro-batch is left without one."""

import torch


class TrainingStrategy:
    def __init__(self, vlm, optimizer, lr_scheduler, grad_accumulation_steps, max_steps):
        self.vlm = vlm
        self.optimizer = optimizer
        self.lr_scheduler = lr_scheduler
        self.grad_accumulation_steps = grad_accumulation_steps
        self.max_steps = max_steps

    def run_vla_training(self, dataloader, metrics, save_interval=2500):
        self.vlm.train()
        self.optimizer.zero_grad()
        for train_idx, batch in enumerate(dataloader):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = self.vlm(input_ids=batch["input_ids"], pixel_values=batch["pixel_values"], labels=batch["labels"]).loss
            normalized_loss = loss / self.grad_accumulation_steps
            normalized_loss.backward()
            if (train_idx + 1) % self.grad_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(self.vlm.parameters(), max_norm=1.0)
                self.optimizer.step()
                self.lr_scheduler.step()
                self.optimizer.zero_grad()
                metrics.commit(global_step=metrics.global_step + 1, lr=self.lr_scheduler.get_last_lr()[0])
                if (terminate := metrics.global_step >= self.max_steps) or metrics.global_step % save_interval == 0:
                    metrics.save_checkpoint(self.vlm)
                if terminate:
                    return
