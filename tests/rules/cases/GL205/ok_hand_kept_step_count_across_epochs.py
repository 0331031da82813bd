import torch
from tqdm import tqdm


def train(args, model, train_dataloader, optimizer, scheduler):
    """The count is kept across epochs: a window may start in one epoch and end in the next,
    so no micro-batch is left without a step (except at the very end of the run)."""
    nb_tr_steps = 0
    for cur_epoch in range(int(args.num_train_epochs)):
        model.train()
        for batch in tqdm(train_dataloader, desc="Training"):
            loss = model(**batch).loss / args.gradient_accumulation_steps
            nb_tr_steps += 1
            loss.backward()
            if nb_tr_steps % args.gradient_accumulation_steps == 0:
                optimizer.step()
                optimizer.zero_grad()
                scheduler.step()
