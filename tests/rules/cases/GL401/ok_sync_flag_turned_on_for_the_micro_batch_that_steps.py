"""A segmentation script keeps DDP's sync flag off between steps and turns it on for the
micro-batch that completes the window, before its forward; after the step it turns it off again
for the next window's micro-batches."""
import torch
import torch.nn.functional as F


def train(model, train_loader, optimizer, epochs, accumulate, distributed):
    if distributed:
        model = torch.nn.parallel.DistributedDataParallel(model, find_unused_parameters=True)
    optimizer.zero_grad()
    if distributed:
        model.require_backward_grad_sync = False
    accumulate_count = 0
    for epoch in range(epochs):
        model.train()
        for inputs, targets in train_loader:
            accumulate_count += 1
            if accumulate_count % accumulate == 0:
                model.require_backward_grad_sync = True
            outputs = model(inputs.cuda())
            loss = F.cross_entropy(outputs, targets.cuda())
            loss /= accumulate
            loss.backward()
            if accumulate_count % accumulate == 0:
                accumulate_count = 0
                optimizer.step()
                optimizer.zero_grad()
                model.require_backward_grad_sync = False
