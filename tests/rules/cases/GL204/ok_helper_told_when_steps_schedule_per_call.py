import argparse

import torch

from data import build_loader
from models import build_language_model


def optimizer_step(loss, optimizer, model, schedule, args, is_update=True):
    loss.backward()
    if is_update:
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        optimizer.zero_grad()
    # the schedule counts calls: its horizon (args.max_step) is set in micro-batches
    if schedule is not None:
        schedule.step()


def train(model, optimizer, schedule, loader, args):
    model.train()
    train_step = 0
    while train_step < args.max_step:
        for batch in loader:
            loss = model(batch["input"].cuda(), labels=batch["target"].cuda()).loss
            train_step += 1
            is_update = True if train_step % args.grad_acc == 0 else False
            optimizer_step(loss / args.grad_acc, optimizer, model, schedule, args, is_update=is_update)
            if train_step == args.max_step:
                break


def main(args):
    model = build_language_model(args).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    schedule = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda step: min(1.0, (step + 1) / args.warmup_step))
    train(model, optimizer, schedule, build_loader(args), args)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--grad_acc", type=int, default=2)
    main(parser.parse_args())
