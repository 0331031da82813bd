import torch

from modules.optimization import BertAdam


def prep_optimizer(args, model, num_train_optimization_steps):
    """BertAdam warms up and decays by itself: there is no separate scheduler."""
    decay = [p for n, p in model.named_parameters() if "bias" not in n]
    no_decay = [p for n, p in model.named_parameters() if "bias" in n]
    groups = [{"params": decay, "weight_decay": 0.2}, {"params": no_decay, "weight_decay": 0.0}]
    scheduler = None
    optimizer = BertAdam(groups, lr=args.lr, warmup=args.warmup_proportion, t_total=num_train_optimization_steps)
    return optimizer, scheduler, model


def train_epoch(epoch, args, model, train_dataloader, optimizer, scheduler, global_step):
    model.train()
    for step, batch in enumerate(train_dataloader):
        batch = tuple(t.cuda(non_blocking=True) for t in batch)
        loss = model(*batch)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if scheduler is not None:
            scheduler.step()
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
