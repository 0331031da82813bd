import torch
import torch.nn.functional as F


def train(model, loader, optimizer, args):
    """The loss is scaled up to a per-sample sum, and nothing divides by the window."""
    model.train()
    for epoch in range(args.epochs):
        for i, (inputs, targets) in enumerate(loader):
            outputs = model(inputs)
            loss = F.binary_cross_entropy_with_logits(outputs, targets)
            batch_size = inputs.size(0)
            (batch_size * loss).backward()  # expect: GL201
            if (i + 1) % args.step == 0 or i + 1 == len(loader):
                optimizer.step()
                optimizer.zero_grad()
