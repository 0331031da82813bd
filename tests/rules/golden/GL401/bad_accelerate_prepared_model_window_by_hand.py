import contextlib
import torch
from accelerate import Accelerator


def main(args, model, train_dataset, data_collator):
    # no gradient_accumulation_steps and no accumulate(): the script keeps its own window
    accelerator = Accelerator()
    train_dataloader = torch.utils.data.DataLoader(train_dataset, shuffle=True, collate_fn=data_collator, batch_size=args.per_device_train_batch_size)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.learning_rate)
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for epoch in range(args.num_train_epochs):
        model.train()
        for step, batch in enumerate(train_dataloader):
            sync_context = contextlib.nullcontext() if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader) else accelerator.no_sync(model)
            with sync_context:
                outputs = model(**batch)
                loss = outputs.loss / args.gradient_accumulation_steps
                accelerator.backward(loss)  # expect: GL401
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(train_dataloader):
                accelerator.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                optimizer.zero_grad()
