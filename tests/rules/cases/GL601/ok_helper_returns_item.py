def train_batch(model, batch, optimizer):
    loss = model(batch).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return loss.item()


total = 0.0
for batch in loader:
    loss = train_batch(model, batch, optimizer)
    total += loss
