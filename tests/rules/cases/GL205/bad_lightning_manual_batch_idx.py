import torch
from lightning.pytorch import LightningModule


class Text2Semantic(LightningModule):
    def __init__(self, model, accumulate=4):
        super().__init__()
        self.model = model
        self.accumulate = accumulate
        self.automatic_optimization = False

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        scheduler = self.lr_schedulers()
        loss, acc = self.model(batch["phonemes"], batch["semantic"])
        self.manual_backward(loss / self.accumulate)
        if (batch_idx + 1) % self.accumulate == 0:  # expect: GL205
            opt.step()
            opt.zero_grad()
            scheduler.step()
        self.log("total_loss", loss, prog_bar=True)

    def configure_optimizers(self):
        optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        return [optimizer], [torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: 1.0)]
