for i, (x, y) in enumerate(loader):
    boundary = (i + 1) % accum_steps == 0
    if not boundary:
        with model.no_sync():
            out = model(x)
    else:
        out = model(x)
    loss = criterion(out, y) / accum_steps
    loss.backward()  # DDP decided in the forward: no all-reduce off the boundary
    if boundary:  # expect: GL205
        optimizer.step()
        optimizer.zero_grad()
