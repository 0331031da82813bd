"""Horovod trainer slicing each loader batch into micro-batches: every micro-batch's loss is
scaled in place by the reciprocal of their count before its backward."""
import torch


def train(model, loader, criterion, optimizer, batch_size, num_batches_per_step, device):
    step_size = num_batches_per_step * batch_size
    reciprocal = 1.0 / num_batches_per_step
    model.train()
    for step, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        for b in range(0, step_size, batch_size):
            outputs = model(inputs[b:b + batch_size])
            loss = criterion(outputs, targets[b:b + batch_size])
            loss.mul_(reciprocal)
            loss.backward()
        optimizer.step()
