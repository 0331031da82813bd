import contextlib

for step, batch in enumerate(loader):
    sync = (step + 1) % grad_accum == 0
    ctx = contextlib.nullcontext() if sync else model.no_sync()
    with ctx:
        loss = model(**batch).loss / grad_accum
        loss.backward()
    if sync:  # expect: GL205
        optimizer.step()
        optimizer.zero_grad()
