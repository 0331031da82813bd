"""A vocoder GAN trainer: each loss is written into the batch dict undivided, and a shared step helper
backpropagates `batch[loss_key]` for the key its caller names."""
import torch


class VocoderTrainer:
    def __init__(self, model, gen_optimizer, disc_optimizer, loader, accumulate_every):
        self.model = model
        self.gen_optimizer = gen_optimizer
        self.disc_optimizer = disc_optimizer
        self.loader = loader
        self.accumulate_every = accumulate_every
        self.scaler = torch.amp.GradScaler("cuda")

    def _update(self, step, batch, loss_key, optimizer):
        self.scaler.scale(batch[loss_key]).backward()  # expect: GL201
        if (step + 1) % self.accumulate_every == 0 or step + 1 == len(self.loader):
            self.scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 10.0)
            self.scaler.step(optimizer)
            self.scaler.update()
            optimizer.zero_grad()

    def train_step(self, step, batch):
        with torch.autocast("cuda", dtype=torch.float16):
            batch.update(self.model.discriminate(**batch))
        self._update(step, batch, "disc_loss", self.disc_optimizer)
        with torch.autocast("cuda", dtype=torch.float16):
            batch.update(self.model.generate(**batch))
        self._update(step, batch, loss_key="gen_loss", optimizer=self.gen_optimizer)

    def train_epoch(self):
        for step, batch in enumerate(self.loader):
            self.train_step(step, batch)
