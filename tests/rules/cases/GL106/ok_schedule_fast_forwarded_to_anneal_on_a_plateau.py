"""An NMT trainer whose evaluation block, at the top of the iteration, anneals on a plateau by
advancing the schedule in a loop of its own (`while scheduler.get_lr()[0] > target:
scheduler.step()`); the regular `scheduler.step()` follows the optimizer's step. The
fast-forward is a deliberate jump."""

import torch


def train(model, optimizer, scheduler, loader, args, evaluate):
    best, since_best = 0.0, 0
    for step, batch in enumerate(loader):
        if step % args.eval_every == 0 and step > 0:
            score = evaluate(model)
            if score > best:
                best, since_best = score, 0
            else:
                since_best += 1
            if since_best > args.early_stop_checkpoints:
                curr_lr = scheduler.get_lr()[0]
                while scheduler.get_lr()[0] > curr_lr / args.learning_rate_scaling:
                    scheduler.step()
                since_best = 0
        loss = model(**batch).loss
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_gradient_clip_value)
        optimizer.step()
        scheduler.step()
