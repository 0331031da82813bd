"""A text-to-SQL trainer clearing on the window's first micro-batch (`iB % N == 0`) and stepping
on its last (`iB % N == N - 1`), in branches of one if-chain: the two never run in one pass, but
both run in every window, so each step sees one window's gradients."""

import torch


def train(train_loader, model, opt, opt_bert, accumulate_gradients, loss_fn):
    model.train()
    for iB, t in enumerate(train_loader):
        scores = model(t["question"], t["header"])
        loss = loss_fn(scores, t["target"]) / accumulate_gradients
        if iB % accumulate_gradients == 0:
            opt.zero_grad()
            if opt_bert:
                opt_bert.zero_grad()
            loss.backward()
            if accumulate_gradients == 1:
                opt.step()
                if opt_bert:
                    opt_bert.step()
        elif iB % accumulate_gradients == (accumulate_gradients - 1):  # expect: GL205
            loss.backward()
            opt.step()
            if opt_bert:
                opt_bert.step()
        else:
            loss.backward()
