import torch
import torch.nn as nn


def finetune(model, train_loader, optimizer, loss_fn, grad_acc, epochs):
    """The window is two sibling branches: the non-final micro-batches run forward and backward
    under no_sync, the last one (or the epoch's last) runs its own forward and backward, then
    clips and steps; the loss is divided by the window."""
    for epoch in range(epochs):
        model.train()
        for index, (data, labels) in enumerate(train_loader):
            index += 1
            data, labels = data.cuda(), labels.cuda()
            last = index % grad_acc == 0 or index == len(train_loader)
            if not last:
                with model.no_sync():
                    logits = model(data)
                    loss = loss_fn(logits, labels) / grad_acc
                    loss.backward()
            if last:
                logits = model(data)
                loss = loss_fn(logits, labels) / grad_acc
                loss.backward()
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                optimizer.zero_grad()
