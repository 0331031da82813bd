import torch
import torch.nn as nn


def train(model, train_loader, optim, args, device):
    """A countdown window: the clip, step and clear run when the count reaches zero, the count
    is set back to the window and lowered after every backward."""
    for epoch in range(args.epochs):
        left = 0
        for i, (v, q, target) in enumerate(train_loader):
            if left == 0:
                nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)
                optim.step()
                optim.zero_grad()
                left = args.grad_accu_steps
            pred = model(v.to(device), q.to(device))
            loss = nn.functional.binary_cross_entropy_with_logits(pred, target.to(device))
            loss /= args.grad_accu_steps
            loss.backward()
            left -= 1
