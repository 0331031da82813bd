import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from models import TransformerEncoderClassifier


class ManualAccumModule(pl.LightningModule):
    def __init__(self, accum=4, lr=1e-4):
        super().__init__()
        self.automatic_optimization = False
        self.accum = accum
        self.lr = lr
        self.model = TransformerEncoderClassifier(num_classes=5)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        sched = self.lr_schedulers()
        logits = self.model(batch["input_ids"], batch["attention_mask"])
        loss = F.cross_entropy(logits, batch["labels"])
        self.manual_backward(loss / self.accum)
        if (batch_idx + 1) % self.accum == 0 or self.trainer.is_last_batch:
            self.clip_gradients(opt, gradient_clip_val=1.0, gradient_clip_algorithm="norm")
            opt.step()
            sched.step()
            opt.zero_grad()
        self.log("train_loss", loss)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.lr)
        return [opt], [torch.optim.lr_scheduler.StepLR(opt, step_size=1000, gamma=0.9)]
