"""A molecule-property fine-tuning loop stepping every second micro-batch (`idx % 2 == 1`, a window
fixed in the code); the multi-task branch sums its losses from `torch.tensor(0.0).cuda()`, and
neither branch divides by the window."""

import torch


def train(model, loader, optimizer, loss_func, args):
    for epoch in range(args.epochs):
        for idx, batch in enumerate(loader):
            tok, lab = batch
            logits = model(tok.cuda())
            if args.multi == 0:
                loss = loss_func(logits.view(-1, 2), lab.cuda().view(-1))
            else:
                loss = torch.tensor(0.0).cuda()
                for i in range(len(logits)):
                    loss += loss_func(logits[i], lab[:, i].cuda())
            loss.backward()  # expect: GL201
            if idx % 2 == 1:  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
