import torch
from lightning.pytorch import LightningModule


class Text2Semantic(LightningModule):
    """Also steps on the epoch's last batch, so no partial window is left."""

    def __init__(self, model, accumulate=4):
        super().__init__()
        self.model = model
        self.accumulate = accumulate
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        loss = self.model(batch["phonemes"], batch["semantic"])
        self.manual_backward(loss / self.accumulate)
        if (batch_idx + 1) % self.accumulate == 0 or self.trainer.is_last_batch:
            opt.step()
            opt.zero_grad()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.model.parameters(), lr=1e-4)
