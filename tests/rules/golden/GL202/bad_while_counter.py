import torch
import torch.nn as nn

from asr import Wav2Vec2ForCTC
from data import speech_batches

accum = 4
max_updates = 20_000
model = Wav2Vec2ForCTC.from_pretrained("facebook/wav2vec2-base", vocab_size=32)
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4)
batches = speech_batches("train-clean-100", batch_size=8)

n_micro = 0
n_updates = 0
while n_updates < max_updates:
    batch = next(batches)
    out = model(batch["input_values"], labels=batch["labels"])
    loss = out.loss / accum
    loss.backward()
    n_micro += 1
    if n_micro == accum:
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()  # expect: GL202
        n_micro = 0
        n_updates += 1
