import torch
import torch.nn.functional as F
from accelerate import Accelerator

from model import TransformerLM
from data import token_loader

accum = 4
accelerator = Accelerator()
model = TransformerLM(vocab_size=50257, d_model=768, n_layers=12)
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
loader = token_loader("openwebtext", batch_size=8)
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)

for step, (x, y) in enumerate(loader):
    if (step + 1) % accum != 0:
        with accelerator.no_sync(model):
            loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / accum
            accelerator.backward(loss)
    else:
        loss = F.cross_entropy(model(x).flatten(0, 1), y.flatten()) / accum
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()
