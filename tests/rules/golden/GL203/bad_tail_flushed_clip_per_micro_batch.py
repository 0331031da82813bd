import torch


def train_one_epoch(args, model, loader, optimizer, lr_scheduler):
    """The window also ends on the epoch's last batch, but the clip runs on every micro-batch."""
    num_batches_per_epoch = loader.num_batches
    model.train()
    for num_steps, (images, input_ids, labels) in enumerate(loader):
        loss = model(vision_x=images, lang_x=input_ids, labels=labels)[0]
        if torch.isnan(loss):
            print("loss is nan, skipping this batch")
            optimizer.zero_grad(set_to_none=True)
            continue
        (loss / args.gradient_accumulation_steps).backward()
        if ((num_steps + 1) % args.gradient_accumulation_steps == 0) or (num_steps == num_batches_per_epoch - 1):
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # expect: GL203
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad(set_to_none=True)
