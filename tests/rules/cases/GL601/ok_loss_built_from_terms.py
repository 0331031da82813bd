for x, y in loader:
    optimizer.zero_grad()
    out = model(x)
    loss = 0
    for weight, criterion in zip(weights, criteria):
        term = criterion(out, y)
        loss += weight * term
    loss.backward()
    optimizer.step()
