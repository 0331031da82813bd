import torch
import torch.nn as nn


def train(model, train_loader, optim, args, device):
    """A countdown window: the step and clear run when the count reaches zero (at the start of
    the next window), the count is set back to the window and lowered after every backward. The
    clip after every backward clips partial sums."""
    for epoch in range(args.epochs):
        total_norm = 0.0
        left = 0
        for i, (v, q, target) in enumerate(train_loader):
            if left == 0:
                optim.step()
                optim.zero_grad()
                left = args.grad_accu_steps
            pred = model(v.to(device), q.to(device))
            loss = nn.functional.binary_cross_entropy_with_logits(pred, target.to(device))
            loss /= args.grad_accu_steps
            loss.backward()
            left -= 1
            total_norm += nn.utils.clip_grad_norm_(model.parameters(), args.grad_clip)  # expect: GL203
        print(f"epoch {epoch} mean grad norm {total_norm / (i + 1):.3f}")
