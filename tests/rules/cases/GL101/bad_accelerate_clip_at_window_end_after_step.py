import torch
from accelerate import Accelerator


class TTSTrainer:
    """The window's end is counted by hand after Accelerate's step: the clip comes too late."""

    def __init__(self, cfg, model, optimizer, scheduler, loader):
        self.cfg = cfg
        self.accelerator = Accelerator(gradient_accumulation_steps=cfg.train.gradient_accumulation_step)
        self.model, self.optimizer, self.scheduler, self.train_dataloader = self.accelerator.prepare(
            model, optimizer, scheduler, loader
        )
        self.batch_count = 0
        self.step = 0

    def _train_step(self, batch):
        out = self.model(**batch)
        return out["loss"], {"mel": out["mel_loss"].item(), "dur": out["dur_loss"].item()}

    def _train_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            with self.accelerator.accumulate(self.model):
                total_loss, train_losses = self._train_step(batch)
                self.accelerator.backward(total_loss)
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.batch_count += 1
            if self.batch_count % self.cfg.train.gradient_accumulation_step == 0:
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)  # expect: GL101
                self.scheduler.step()
                self.step += 1
                for key, value in train_losses.items():
                    self.accelerator.log({f"Step/Train {key}": value}, step=self.step)
