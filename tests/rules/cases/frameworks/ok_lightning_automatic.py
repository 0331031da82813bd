import lightning as L
import torch
import torch.nn.functional as F

from models import ResNet18
from data import CIFAR10DataModule


class LitClassifier(L.LightningModule):
    def __init__(self, lr=0.05):
        super().__init__()
        self.save_hyperparameters()
        self.model = ResNet18(num_classes=10)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = F.cross_entropy(self.model(x), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        optimizer = torch.optim.SGD(self.parameters(), lr=self.hparams.lr, momentum=0.9)
        scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=0.1, total_steps=self.trainer.estimated_stepping_batches)
        return {"optimizer": optimizer, "lr_scheduler": {"scheduler": scheduler, "interval": "step"}}


if __name__ == "__main__":
    trainer = L.Trainer(max_epochs=30, precision="16-mixed", accumulate_grad_batches=4,
                        gradient_clip_val=1.0, strategy="ddp", devices=4)
    trainer.fit(LitClassifier(), datamodule=CIFAR10DataModule(batch_size=64))
