import torch


def train(args, model, train_dataloader, optimizer, lr_scheduler):
    for epoch in range(args.num_train_epochs):
        for step, batch in enumerate(train_dataloader):
            loss = model(**batch).loss / args.gradient_accumulation_steps
            loss.backward()
            if step % args.gradient_accumulation_steps == 0 or step == len(train_dataloader) - 1:
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
