import contextlib


def train(model, loader, optimizer, grad_accum):
    for step, batch in enumerate(loader):
        sync = (step + 1) % grad_accum == 0
        ctx = contextlib.nullcontext() if sync else model.no_sync()
        loss = model(**batch).loss / grad_accum
        with ctx:  # expect: GL402
            loss.backward()
        if sync:  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()
