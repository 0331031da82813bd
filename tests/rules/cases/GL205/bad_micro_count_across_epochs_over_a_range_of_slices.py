"""DPO over shuffled pairs: the micro-batch count starts once, before the epochs, and each
epoch clears the gradients first, so the pairs after an epoch's last step are dropped."""
import random

import torch
import torch.nn.functional as F


def train(model, pairs, args, pair_logits):
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    opt_step = micro = 0
    try:
        for ep in range(args.epochs):
            order = list(range(len(pairs)))
            random.Random(args.seed + ep).shuffle(order)
            opt.zero_grad(set_to_none=True)
            for i in range(0, len(order) - args.micro_bs + 1, args.micro_bs):
                batch = [pairs[j] for j in order[i:i + args.micro_bs]]
                loss = -F.logsigmoid(pair_logits(model, batch)).mean()
                (loss / args.grad_accum).backward()
                micro += 1
                if micro % args.grad_accum == 0:  # expect: GL205
                    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                    opt.step()
                    opt.zero_grad(set_to_none=True)
                    opt_step += 1
    finally:
        print("optimizer steps:", opt_step)
