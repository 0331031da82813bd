import torch
from tqdm import tqdm


def train(args, model, optimizer, scheduler, train_loader, t_total):
    """Training ends when the step budget is spent, tested right after a step; every epoch before
    that still drops its partial last window."""
    global_step = 0
    while True:
        model.train()
        epoch_iterator = tqdm(train_loader, desc="Training")
        for step, (x, y) in enumerate(epoch_iterator):
            loss = model(x, y) / args.gradient_accumulation_steps
            loss.backward()
            if (step + 1) % args.gradient_accumulation_steps == 0 or step + 1 == len(epoch_iterator):  # expect: GL205
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
                global_step += 1
                if global_step % t_total == 0:
                    break
        if global_step % t_total == 0:
            break
