"""The same step in a trainer class whose model the launcher wraps in DDP."""
import torch


class Trainer:
    def __init__(self, model, optimizer, loader, grad_accum_steps, distributed):
        self.model, self.optimizer, self.loader = model, optimizer, loader
        self.grad_accum_steps, self.distributed = grad_accum_steps, distributed

    def train(self, max_steps):
        for step in range(max_steps):
            self.optimizer.zero_grad(set_to_none=True)
            for micro_step in range(self.grad_accum_steps):
                x, y = self.loader.next_batch()
                logits, loss = self.model(x.cuda(), y.cuda())
                loss = loss / self.grad_accum_steps
                if self.distributed:
                    self.model.require_backward_grad_sync = micro_step == self.grad_accum_steps - 1  # expect: GL402
                loss.backward()
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
