"""An NMT trainer whose worker processes anneal when the main process leaves a flag file: at the
top of an iteration the schedule is advanced until the rate has dropped by a factor, a
deliberate jump inside the accumulation loop, not a step per micro-batch."""
import os

import torch


def train(model, loader, optimizer, scheduler, args):
    for i, batch in enumerate(loader):
        if os.path.exists(args.anneal_flag):
            current = scheduler.get_last_lr()[0]
            while scheduler.get_last_lr()[0] > current / args.anneal_factor:
                scheduler.step()
            os.remove(args.anneal_flag)
        loss = model(**batch).loss / args.accum_steps
        loss.backward()
        if (i + 1) % args.accum_steps == 0 or i + 1 == len(loader):
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad()
