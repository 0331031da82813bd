import torch

from transformers import get_linear_schedule_with_warmup


def prep_optimizer(args, model, num_train_optimization_steps):
    """AdamW with a linear warm-up when asked for, none otherwise."""
    decay = [p for n, p in model.named_parameters() if "bias" not in n]
    no_decay = [p for n, p in model.named_parameters() if "bias" in n]
    groups = [{"params": decay, "weight_decay": 0.2}, {"params": no_decay, "weight_decay": 0.0}]
    optimizer = torch.optim.AdamW(groups, lr=args.lr)
    scheduler = None
    if args.warmup_proportion > 0:
        scheduler = get_linear_schedule_with_warmup(optimizer, int(args.warmup_proportion * num_train_optimization_steps), num_train_optimization_steps)
    return optimizer, scheduler, model


def train_epoch(epoch, args, model, train_dataloader, optimizer, scheduler, global_step):
    model.train()
    for step, batch in enumerate(train_dataloader):
        batch = tuple(t.cuda(non_blocking=True) for t in batch)
        loss = model(*batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if scheduler is not None:
            scheduler.step()  # expect: GL106
        optimizer.step()
        optimizer.zero_grad()
        global_step += 1
    return global_step


def main(args, model, train_dataloader):
    steps = len(train_dataloader) * args.epochs
    optimizer, scheduler, model = prep_optimizer(args, model, steps)
    global_step = 0
    for epoch in range(args.epochs):
        global_step = train_epoch(epoch, args, model, train_dataloader, optimizer, scheduler, global_step)
