import math

import torch
from torch.nn.utils import clip_grad_norm_

from model import TransformerLM
from data import token_batches


def train(args):
    model = TransformerLM(vocab_size=args.vocab_size, d_model=512, n_layers=8).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95))
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, total_steps=args.steps)

    global_step = 0
    for tokens in token_batches(args.data, batch_size=args.batch_size):
        tokens = tokens.cuda()
        logits = model(tokens[:, :-1])
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), tokens[:, 1:].flatten())
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        total_norm = clip_grad_norm_(model.parameters(), args.max_grad_norm)  # expect: GL101
        optimizer.step()
        scheduler.step()
        global_step += 1
        if global_step % args.log_every == 0:
            ppl = math.exp(loss.item())
            print(f"step {global_step} loss {loss.item():.3f} ppl {ppl:.1f} grad_norm {total_norm:.3f}")
        if global_step >= args.steps:
            break
