"""The same sliced trainer dividing each micro-batch's loss in place by the number of
processes only: DDP's average over ranks, not the window's."""
import torch
import torch.distributed as dist


def train(model, loader, criterion, optimizer, batch_size, num_batches_per_step, device):
    step_size = num_batches_per_step * batch_size
    model.train()
    for step, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        for b in range(0, step_size, batch_size):
            outputs = model(inputs[b:b + batch_size])
            loss = criterion(outputs, targets[b:b + batch_size])
            loss.div_(dist.get_world_size())
            loss.backward()  # expect: GL201
        optimizer.step()
