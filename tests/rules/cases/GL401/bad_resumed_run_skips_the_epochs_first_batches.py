"""The transformers 2.x example scripts' loop: a resumed run skips the batches its checkpoint
already trained on (a count set from `global_step % steps_per_epoch` and counted down), then
accumulates `gradient_accumulation_steps` micro-batches through the DDP model without
`no_sync()`. The skip's `> 0` test is no window."""
import torch
from torch.nn.parallel import DistributedDataParallel


def train(args, train_dataloader, model, optimizer, scheduler):
    if args.local_rank != -1:
        model = DistributedDataParallel(model, device_ids=[args.local_rank], output_device=args.local_rank)
    global_step = 0
    steps_trained_in_current_epoch = 0
    if args.resume_from_checkpoint:
        global_step = int(args.model_name_or_path.split("-")[-1].split("/")[0])
        steps_trained_in_current_epoch = global_step % (len(train_dataloader) // args.gradient_accumulation_steps)
    model.zero_grad()
    for _ in range(int(args.num_train_epochs)):
        for step, batch in enumerate(train_dataloader):
            if steps_trained_in_current_epoch > 0:
                steps_trained_in_current_epoch -= 1
                continue
            model.train()
            outputs = model(**batch)
            loss = outputs[0]
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            loss.backward()  # expect: GL401
            if (step + 1) % args.gradient_accumulation_steps == 0 or len(train_dataloader) <= args.gradient_accumulation_steps and step + 1 == len(train_dataloader):  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                model.zero_grad()
                global_step += 1
