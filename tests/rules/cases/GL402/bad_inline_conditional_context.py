import contextlib

for i, batch in enumerate(train_loader):
    last = (i + 1) % args.accumulation_steps == 0
    outputs = model(batch["pixel_values"].cuda())
    loss = loss_fn(outputs, batch["labels"].cuda()) / args.accumulation_steps
    with (contextlib.nullcontext() if last else model.no_sync()):  # expect: GL402
        loss.backward()
    if last:  # expect: GL205
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
