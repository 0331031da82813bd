def train_epoch(model, loader, optimizer, loss_fn, device):
    model.train()
    epoch_loss = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()  # expect: GL601
    return epoch_loss / len(loader)
