import itertools

import torch
import torch.nn as nn
from torch.amp import GradScaler, autocast

from tts import Tacotron2, Tacotron2Loss
from data import ljspeech_loader

model = Tacotron2(n_mel_channels=80).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, weight_decay=1e-6)
criterion = Tacotron2Loss()
scaler = GradScaler("cuda", init_scale=1024)
batches = itertools.cycle(ljspeech_loader(batch_size=48))
iteration, max_iters = 0, 150_000

while iteration < max_iters:
    text, text_lens, mels, gates = next(batches)
    model.zero_grad()
    with autocast("cuda"):
        outputs = model(text.cuda(), text_lens.cuda(), mels.cuda())
        loss = criterion(outputs, (mels.cuda(), gates.cuda()))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grad_norm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL301
    scaler.step(optimizer)
    scaler.update()
    iteration += 1
    if iteration % 500 == 0:
        print(f"iter {iteration} loss {loss.item():.4f} grad {grad_norm:.3f}")
