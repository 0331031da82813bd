"""The same two back ends, but the plain side steps its scheduler on every micro-batch, outside
the hand-counted window."""


def train_step(data_iterator, model, optimizer, lr_scheduler, args, forward_step):
    count = 0
    if not args.deepspeed:
        optimizer.zero_grad()
    while True:
        loss = forward_step(data_iterator, model)
        if args.deepspeed:
            model.backward(loss)
        else:
            (loss / args.gradient_accumulation_steps).backward()
        count += 1
        if args.deepspeed:
            if model.is_gradient_accumulation_boundary():
                model.step()
                lr_scheduler.step()
                break
            model.step()
        else:
            if count == args.gradient_accumulation_steps:
                optimizer.step()
                lr_scheduler.step()  # expect: GL106, GL204
                break
