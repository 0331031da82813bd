"""A fine-tuning script caps each epoch at `max_batches` and steps at a window's end or on the
cap's last batch; the loss it backpropagates is never divided by the window."""
import torch
import torch.nn.functional as F


def finetune(model, loader, optimizer, scheduler, args):
    max_batches = min(len(loader), args.max_batches_per_epoch)
    for epoch in range(args.epochs):
        model.train()
        for step, (images, labels) in enumerate(loader):
            if step >= max_batches:
                break
            logits = model(images.cuda(non_blocking=True))
            loss = F.cross_entropy(logits, labels.cuda(non_blocking=True), label_smoothing=0.1)
            (loss / args.accum_steps).backward()  # expect: GL201
            if (step + 1) % args.accum_steps == 0 or step + 1 == max_batches:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad(set_to_none=True)
