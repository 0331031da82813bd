def compute_loss(model, batch):
    logits = model(batch["input_ids"], attention_mask=batch["attention_mask"])
    return lm_loss(logits, batch["labels"])


for step, batch in enumerate(loader):
    loss = compute_loss(model, batch) / grad_accum
    if (step + 1) % grad_accum != 0:
        with model.no_sync():  # expect: GL402
            loss.backward()
        continue
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
