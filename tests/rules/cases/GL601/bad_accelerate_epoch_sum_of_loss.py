from accelerate import Accelerator


class Trainer:
    def __init__(self, cfg, model, optimizer, scheduler, loader):
        self.cfg = cfg
        self.accelerator = Accelerator(gradient_accumulation_steps=cfg.grad_accum)
        self.model, self.optimizer, self.scheduler, self.train_dataloader = self.accelerator.prepare(
            model, optimizer, scheduler, loader
        )

    def _train_step(self, batch):
        losses = self.model(**batch)
        return losses["loss"], {k: v.item() for k, v in losses.items()}

    def _train_epoch(self):
        self.model.train()
        epoch_sum_loss = 0.0
        epoch_step = 0
        for batch in self.train_dataloader:
            with self.accelerator.accumulate(self.model):
                loss, train_losses = self._train_step(batch)
                self.accelerator.backward(loss)
                self.optimizer.step()
                self.scheduler.step()
                self.optimizer.zero_grad()
            epoch_sum_loss += loss  # expect: GL601
            epoch_step += 1
        return epoch_sum_loss / epoch_step
