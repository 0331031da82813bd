import torch
import torch.nn as nn


def train(model, train_loader, optimizer, loss_fn, accum, epochs):
    """The non-final micro-batches run under no_sync; the last one clips the window and steps."""
    for epoch in range(epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        for step, batch in enumerate(train_loader):
            x, y = batch
            if (step + 1) % accum != 0 and step + 1 != len(train_loader):
                with model.no_sync():
                    loss = loss_fn(model(x.cuda()), y.cuda()) / accum
                    loss.backward()
            else:
                loss = loss_fn(model(x.cuda()), y.cuda()) / accum
                loss.backward()
                nn.utils.clip_grad_value_(model.parameters(), clip_value=1.0)
                optimizer.step()
                optimizer.zero_grad()
