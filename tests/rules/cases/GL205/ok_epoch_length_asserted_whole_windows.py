import torch


def train_epoch(model, dl, optimizer, criterion, aggregate_k_gradients):
    model.train()
    assert len(dl) % aggregate_k_gradients == 0, "choose steps per epoch so that aggregate_k_gradients divides it"
    for batch, (data, targets) in enumerate(dl):
        loss = criterion(model(data), targets) / aggregate_k_gradients
        loss.backward()
        if batch % aggregate_k_gradients == aggregate_k_gradients - 1:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
