"""The train-step factory of PyTorch tutorials, grown an accumulation window: the closure the
factory returns steps every `accumulation_steps` calls, but each call's loss is summed undivided."""
import torch
import torch.nn as nn


def make_train_step(model, loss_fn, optimizer, accumulation_steps):
    calls = 0

    def perform_train_step(x, y):
        nonlocal calls
        model.train()
        loss = loss_fn(model(x), y)
        loss.backward()  # expect: GL201
        calls += 1
        if calls % accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
        return loss.item()

    return perform_train_step


def fit(model, train_loader, device, n_epochs=20, lr=0.1):
    loss_fn = nn.MSELoss(reduction="mean")
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    train_step = make_train_step(model, loss_fn, optimizer, accumulation_steps=4)
    losses = []
    for epoch in range(n_epochs):
        for x_batch, y_batch in train_loader:
            losses.append(train_step(x_batch.to(device), y_batch.to(device)))
    return losses
