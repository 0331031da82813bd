import lightning.pytorch as pl
import torch
import torch.nn.functional as F

from networks import UNet


class SegmentationModule(pl.LightningModule):
    def __init__(self, lr=3e-4, accumulate=8):
        super().__init__()
        self.save_hyperparameters()
        self.automatic_optimization = False
        self.net = UNet(in_channels=3, num_classes=21)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        images, masks = batch
        loss = F.cross_entropy(self.net(images), masks, ignore_index=255)
        self.manual_backward(loss / self.hparams.accumulate)  # expect: GL201
        if (batch_idx + 1) % self.hparams.accumulate == 0 or batch_idx + 1 == self.trainer.num_training_batches:  # expect: GL205
            self.clip_gradients(opt, gradient_clip_val=0.5, gradient_clip_algorithm="norm")
            opt.step()
            opt.zero_grad()
        self.log("train/loss", loss, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
