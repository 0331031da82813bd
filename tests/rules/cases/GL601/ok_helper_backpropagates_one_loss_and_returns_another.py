"""The step helper backpropagates the training loss but returns a detached copy for logging."""
def train_step(model, optimizer, batch):
    loss = model(batch).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    logged = loss.detach()
    return logged


def fit(model, optimizer, loader, epochs):
    for epoch in range(epochs):
        running = 0
        for batch in loader:
            running += train_step(model, optimizer, batch)
        print(epoch, float(running) / len(loader))
