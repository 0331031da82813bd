for x_chunks, y_chunks in loader:
    optimizer.zero_grad()
    total = 0.0
    for x, y in zip(x_chunks, y_chunks):
        loss = criterion(model(x), y)
        total += loss
    total.backward()
    optimizer.step()
