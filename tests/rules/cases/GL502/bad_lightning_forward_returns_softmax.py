import torch
import torch.nn.functional as F
from lightning.pytorch import LightningModule
from torch import nn


class Classifier(LightningModule):
    """`forward` ends in a softmax (handy for prediction), and the training step feeds its
    output to cross-entropy; the evaluation hooks run without gradients."""

    def __init__(self, in_features=32, num_classes=3, lr=0.01):
        super().__init__()
        self.hidden = nn.Linear(in_features, 64)
        self.out = nn.Linear(64, num_classes)
        self.lr = lr

    def forward(self, x):
        x = torch.relu(self.hidden(x))
        return F.softmax(self.out(x), dim=1)

    def training_step(self, batch, batch_idx):
        x, y = batch
        probs = self.forward(x)
        loss = F.cross_entropy(probs, y)  # expect: GL502
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        probs = self(x)
        self.log("val_loss", F.cross_entropy(probs, y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)
