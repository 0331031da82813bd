for i, (x, y) in enumerate(loader):
    if (i + 1) % 4 != 0:
        with model.no_sync():
            criterion(model(x), y).div(4).backward()
        continue
    criterion(model(x), y).div(4).backward()
    optimizer.step()
    optimizer.zero_grad()
