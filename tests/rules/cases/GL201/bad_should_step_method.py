import torch
import torch.nn as nn

from tts.models import Tacotron2
from tts.data import ljspeech_loader


class TTSTrainer:
    def __init__(self, hparams):
        self.hparams = hparams
        self.model = Tacotron2(hparams).cuda()
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=hparams.lr, weight_decay=1e-6)
        self.iteration = 0

    def _should_step(self):
        return (self.iteration + 1) % self.hparams.grad_accum_steps == 0

    def compute_loss(self, batch):
        mel_out, mel_postnet, gate_out = self.model(batch.text.cuda(), batch.mel.cuda())
        return self.criterion(mel_out, batch.mel.cuda()) + self.criterion(mel_postnet, batch.mel.cuda())

    def train_step(self, batch):
        loss = self.compute_loss(batch)
        loss.backward()  # expect: GL201
        if self._should_step():
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.hparams.grad_clip_thresh)
            self.optimizer.step()
            self.model.zero_grad()
        self.iteration += 1
        return loss.item()

    def train(self, epochs):
        loader = ljspeech_loader(self.hparams.batch_size)
        for epoch in range(epochs):
            for batch in loader:
                self.train_step(batch)
