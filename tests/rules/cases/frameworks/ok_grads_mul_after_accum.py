import torch
import torch.nn as nn

from model import ConformerCTC
from data import asr_loader

accum = 4
model = ConformerCTC(vocab_size=128).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.98))
ctc = nn.CTCLoss(zero_infinity=True)
loader = asr_loader("librispeech-960", batch_size=16)

for epoch in range(100):
    for i, (feats, feat_lens, targets, target_lens) in enumerate(loader):
        log_probs, out_lens = model(feats.cuda(), feat_lens.cuda())
        loss = ctc(log_probs.transpose(0, 1), targets, out_lens, target_lens)
        loss.backward()
        if (i + 1) % accum == 0:  # expect: GL205
            with torch.no_grad():
                for p in model.parameters():
                    if p.grad is not None:
                        p.grad.mul_(1 / accum)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            optimizer.step()
            optimizer.zero_grad()
