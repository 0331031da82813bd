import torch
import torch.nn.functional as F
from torch.nn.utils import clip_grad_norm_

from model import TransformerLM
from data import token_batches
from logger import WandbLogger

model = TransformerLM(vocab_size=50257, d_model=768, n_layers=12).cuda()
optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95), weight_decay=0.1)
scaler = torch.amp.GradScaler("cuda", init_scale=2.0**16)
logger = WandbLogger(project="lm")

for step, tokens in enumerate(token_batches("openwebtext", batch_size=16)):
    tokens = tokens.cuda()
    with torch.autocast("cuda", dtype=torch.float16):
        logits = model(tokens[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), tokens[:, 1:].reshape(-1))
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    grad_norm = clip_grad_norm_(model.parameters(), 1.0)  # expect: GL301
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    logger.log({"loss": loss.item(), "grad_norm": grad_norm.item(), "scale": scaler.get_scale()}, step=step)
