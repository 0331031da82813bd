import torch


def train_one_epoch(model, criterion, data_loader, optimizer, accum_iter):
    model.train()
    optimizer.zero_grad()
    for data_iter_step, (samples, targets) in enumerate(data_loader):
        loss = criterion(model(samples), targets) / accum_iter
        loss.backward()
        if (data_iter_step + 1) % accum_iter == 0 or data_iter_step + 1 == len(data_loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
