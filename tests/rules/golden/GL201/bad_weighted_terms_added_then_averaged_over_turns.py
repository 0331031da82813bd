"""A dialogue model's step sums each turn's loss with a discount weight and averages over the
turns: a mean within the micro-batch, not a division by the window it accumulates over."""


def train_one_step(model, dialog, discount):
    total_loss = 0.0
    for turn_idx, turn in enumerate(dialog):
        logits = model(turn["input_ids"])
        loss = model.lm_loss(logits, turn["labels"])
        total_loss += discount[turn_idx] * loss
    total_loss /= len(dialog)
    return total_loss


def train(model, loader, optimizer, scheduler, args):
    update_count = 0
    for epoch in range(args.num_train_epochs):
        for dialog in loader:
            loss = train_one_step(model, dialog, args.discount)
            (loss / args.gradient_accumulation_steps).backward()  # expect: GL201
            update_count += 1
            if update_count % args.gradient_accumulation_steps == 0:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
