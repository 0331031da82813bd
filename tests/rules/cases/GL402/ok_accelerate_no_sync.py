from accelerate import Accelerator

accelerator = Accelerator()
model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
for step, batch in enumerate(loader):
    if (step + 1) % accum != 0:
        with accelerator.no_sync(model):
            outputs = model(**batch)
            accelerator.backward(outputs.loss / accum)
    else:
        outputs = model(**batch)
        accelerator.backward(outputs.loss / accum)
        optimizer.step()
        optimizer.zero_grad()
