import torch
from torch.nn.utils import clip_grad_norm_


class Seq2SeqTrainer:
    """Each task step computes its loss and hands it to optimize(); the driver calls
    end_iteration() after every batch, which advances the counter optimize() tests."""

    def __init__(self, encoder, decoder, optimizer, params):
        self.encoder = encoder
        self.decoder = decoder
        self.optimizer = optimizer
        self.params = params
        self.n_iter = 0

    def optimize(self, loss):
        params = self.params
        if self.n_iter % params.accumulate_gradients == 0:
            loss.backward()
            if params.clip_grad_norm > 0:
                clip_grad_norm_(self.decoder.parameters(), params.clip_grad_norm)
            self.optimizer.step()
            self.optimizer.zero_grad()
        else:
            loss.backward()

    def translation_step(self, src, tgt, lambda_coeff):
        enc = self.encoder(src)
        _, loss = self.decoder(enc, tgt)
        loss = lambda_coeff * loss
        self.optimize(loss)  # expect: GL201

    def end_iteration(self):
        self.n_iter += 1


def train(trainer, batches):
    for src, tgt in batches:
        trainer.translation_step(src, tgt, lambda_coeff=1.0)
        trainer.end_iteration()
