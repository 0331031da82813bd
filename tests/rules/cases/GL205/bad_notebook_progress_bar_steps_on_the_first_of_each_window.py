"""A competition notebook's train loop: the old `tqdm.tqdm_notebook` progress bar around
`enumerate`, the step on `n_iter % N == 0` from 0 (the first micro-batch of each window), and
the clear at the top of each call: the micro-batches after the epoch's last step are dropped."""
import torch
import tqdm

N_ACCUMULATE = 4


def train_loop(train_data_loader, model, optimizer, scheduler, criterion):
    model.train()
    losses = []
    optimizer.zero_grad()
    for n_iter, (X, y) in tqdm.tqdm_notebook(enumerate(train_data_loader), total=len(train_data_loader)):
        outputs = model(X.cuda())
        loss = criterion(outputs, y.cuda()) / N_ACCUMULATE
        loss.backward()
        if n_iter % N_ACCUMULATE == 0:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
            scheduler.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)
