for step, (x, y) in enumerate(loader):
    log_loss = 0.0
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    log_loss += loss
    writer.add_scalar("loss", log_loss, step)
