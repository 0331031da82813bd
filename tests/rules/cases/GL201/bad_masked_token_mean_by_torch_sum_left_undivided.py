"""A Chinese baby-llama SFT epoch: the loss is the mean over the answer's tokens
(`torch.sum(loss * loss_mask) / loss_mask.sum()`), the micro-batch's own mean, and it is never
divided by the accumulation window."""
import torch
import torch.nn.functional as F


def sft_epoch(epoch, opt, train_loader, optimizer, model, scaler, ctx):
    for step, (X, Y, loss_mask) in enumerate(train_loader):
        X, Y, loss_mask = X.cuda(), Y.cuda(), loss_mask.cuda()
        with ctx:
            logits = model(X, Y)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), Y.view(-1), ignore_index=0, reduction="none")
            loss_mask = loss_mask.view(-1)
            loss = torch.sum(loss * loss_mask) / loss_mask.sum()
        scaler.scale(loss).backward()  # expect: GL201
        if (step + 1) % opt.gradient_accumulation_steps == 0:  # expect: GL205
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), opt.grad_clip)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)
