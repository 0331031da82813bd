import contextlib

for i, batch in enumerate(train_loader):
    last = (i + 1) % args.accumulation_steps == 0
    with (contextlib.nullcontext() if last else model.no_sync()):  # expect: GL402
        outputs = model(batch["pixel_values"].cuda())
        loss = loss_fn(outputs, batch["labels"].cuda()) / args.accumulation_steps
        loss.backward()
    if last or i + 1 == len(train_loader):  # expect: GL205
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
