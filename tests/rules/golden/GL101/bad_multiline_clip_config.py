from dataclasses import dataclass

import torch
import torch.nn.functional as F

from speech.model import Conformer
from speech.data import librispeech_loader


@dataclass
class Config:
    lr: float = 5e-4
    grad_clip: float = 3.0
    epochs: int = 100
    batch_size: int = 16


def run(cfg: Config):
    model = Conformer(num_classes=29)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, betas=(0.9, 0.98), eps=1e-9)
    loader = librispeech_loader("train-clean-100", batch_size=cfg.batch_size)
    for epoch in range(cfg.epochs):
        for feats, feat_lens, targets, target_lens in loader:
            log_probs, out_lens = model(feats, feat_lens)
            loss = F.ctc_loss(log_probs.transpose(0, 1), targets, out_lens, target_lens, zero_infinity=True)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(  # expect: GL101
                parameters=model.parameters(),
                max_norm=cfg.grad_clip,
            )
            optimizer.step()


if __name__ == "__main__":
    run(Config())
