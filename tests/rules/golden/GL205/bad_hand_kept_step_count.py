import torch
from tqdm import tqdm


def train(args, model, tokenizer, train_dataloader, optimizer, scheduler):
    global_step = 0
    for cur_epoch in range(int(args.num_train_epochs)):
        bar = tqdm(train_dataloader, total=len(train_dataloader), desc="Training")
        nb_tr_examples, nb_tr_steps, tr_loss = 0, 0, 0
        model.train()
        for batch in bar:
            source_ids, target_ids = (t.to(args.device) for t in batch)
            outputs = model(input_ids=source_ids, labels=target_ids)
            loss = outputs.loss
            if args.gradient_accumulation_steps > 1:
                loss = loss / args.gradient_accumulation_steps
            tr_loss += loss.item()
            nb_tr_examples += source_ids.size(0)
            nb_tr_steps += 1
            loss.backward()
            if nb_tr_steps % args.gradient_accumulation_steps == 0 or nb_tr_steps == len(bar):  # expect: GL205
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
                global_step += 1
                bar.set_description(f"[{cur_epoch}] loss {tr_loss / nb_tr_steps:.3f}")
