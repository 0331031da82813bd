import pytorch_lightning as pl
import torch
import torch.nn.functional as F

from encoders import TextEncoder


class ContrastiveModule(pl.LightningModule):
    def __init__(self, lr=1e-4, accumulate_grad_batches=4, temperature=0.07):
        super().__init__()
        self.automatic_optimization = False
        self.encoder = TextEncoder("bert-base-uncased")
        self.lr = lr
        self.accumulate_grad_batches = accumulate_grad_batches
        self.temperature = temperature

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        opt.zero_grad()  # expect: GL202
        queries = F.normalize(self.encoder(batch["query"]), dim=-1)
        docs = F.normalize(self.encoder(batch["doc"]), dim=-1)
        logits = queries @ docs.T / self.temperature
        labels = torch.arange(logits.size(0), device=logits.device)
        loss = F.cross_entropy(logits, labels) / self.accumulate_grad_batches
        self.manual_backward(loss)
        if (batch_idx + 1) % self.accumulate_grad_batches == 0:  # expect: GL205
            opt.step()
        self.log("loss", loss)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr)
