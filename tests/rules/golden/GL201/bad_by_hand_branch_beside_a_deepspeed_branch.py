import deepspeed
import torch


def train(args, model, optimizer, scheduler, train_dataloader):
    """One loop for three back-ends: DeepSpeed's engine divides by its own window, but the
    native-AMP and plain branches backpropagate the undivided loss while the step waits for
    `backward_now`."""
    if args.backend == "deepspeed":
        model, optimizer, _, scheduler = deepspeed.initialize(model=model, optimizer=optimizer, lr_scheduler=scheduler)
    scaler = torch.amp.GradScaler("cuda")
    model.train()
    for iteration, batch in enumerate(train_dataloader, start=1):
        outputs = model(**batch)
        loss = outputs[0]
        backward_now = iteration % args.gradient_accumulation_steps == 0 or iteration == len(train_dataloader)
        if args.backend == "deepspeed":
            model.backward(loss)
        elif args.backend == "amp":
            scaler.scale(loss / args.gradient_accumulation_steps).backward()  # expect: GL201
        else:
            (loss / args.gradient_accumulation_steps).backward()  # expect: GL201
        if backward_now:
            if args.backend == "deepspeed":
                model.step()
            elif args.backend == "amp":
                scaler.step(optimizer)
                scaler.update()
                scheduler.step()
                model.zero_grad()
            else:
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
        if iteration % args.save_steps == 0:
            model.save_checkpoint(args.output_dir) if args.backend == "deepspeed" else torch.save(model.state_dict(), args.output_dir)
