"""The window's clear follows its own step in the same branch; the early stop later steps
whatever the window holds by then (nothing, right after a boundary) and leaves the loop."""
import torch

GRAD_ACCUM = 8


def train_sft(model, opt, examples, target_loss=None):
    loss_ema = None
    for step, batch in enumerate(examples):
        loss = model(**batch).loss / GRAD_ACCUM
        loss.backward()
        if (step + 1) % GRAD_ACCUM == 0:  # expect: GL205
            opt.step()
            opt.zero_grad()
        loss_ema = loss.item() if loss_ema is None else 0.9 * loss_ema + 0.1 * loss.item()
        if target_loss is not None and loss_ema <= target_loss:
            opt.step()
            opt.zero_grad()
            break
