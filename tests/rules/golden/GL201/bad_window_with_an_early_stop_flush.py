"""A LoRA fine-tune accumulates `GRAD_ACCUM` batches of one example and stops early once the
smoothed loss reaches a target, stepping what is left before it breaks out: that last step is
the exit's flush, not the window's, and the loss is never divided by the window."""
import torch

GRAD_ACCUM = 8


def train_sft(model, opt, examples, num_epochs, target_loss=None, batch_size=1):
    step, loss_ema, stopped = 0, None, False
    model.train()
    for epoch in range(num_epochs):
        for i in range(0, len(examples), batch_size):
            batch = examples[i : i + batch_size]
            loss = model(**batch, labels=batch["input_ids"]).loss
            (loss / GRAD_ACCUM).backward()  # expect: GL201
            if (step + 1) % GRAD_ACCUM == 0:
                opt.step()
                opt.zero_grad()
            raw = loss.item()
            loss_ema = raw if loss_ema is None else 0.9 * loss_ema + 0.1 * raw
            step += 1
            if target_loss is not None and loss_ema <= target_loss:
                opt.step()
                opt.zero_grad()
                stopped = True
                break
        if stopped:
            break
        opt.step()
        opt.zero_grad()
