import torch
import torch.nn as nn

from seq2seq import TransformerTranslator
from data import wmt_loader

PAD = 0
accum_steps = 4
model = TransformerTranslator(src_vocab=32000, tgt_vocab=32000, d_model=512)
optimizer = torch.optim.Adam(model.parameters(), lr=7e-4, betas=(0.9, 0.98), eps=1e-9)
criterion = nn.CrossEntropyLoss(ignore_index=PAD, label_smoothing=0.1)
loader = wmt_loader("de-en", max_tokens=4096)

for epoch in range(20):
    for i, (src, tgt) in enumerate(loader):
        micro_step = i % accum_steps
        out = model(src, tgt[:, :-1])
        loss = criterion(out.reshape(-1, out.size(-1)), tgt[:, 1:].reshape(-1))
        loss.backward()  # expect: GL201
        if micro_step == accum_steps - 1:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
