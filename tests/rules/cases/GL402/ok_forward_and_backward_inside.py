for i, (x, y) in enumerate(loader):
    if (i + 1) % accum_steps != 0:  # expect: GL205
        with model.no_sync():
            loss = criterion(model(x), y) / accum_steps
            loss.backward()
    else:
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
