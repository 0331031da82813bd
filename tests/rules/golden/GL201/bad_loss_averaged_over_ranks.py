import torch
import torch.distributed as dist
import torch.nn as nn

from engine.data import build_loader
from engine.models import build_model


def all_reduce_mean(tensor, world_size):
    """Average a value over the ranks, for logging and for the loss the rank trains on."""
    tensor = tensor.clone()
    dist.all_reduce(tensor, op=dist.ReduceOp.SUM)
    tensor = tensor / world_size
    return tensor


def train_one_epoch(loader, model, optimizer, criterion, args):
    model.train()
    for batch_idx, (images, labels) in enumerate(loader):
        images, labels = images.cuda(non_blocking=True), labels.cuda(non_blocking=True)
        loss = criterion(model(images), labels)
        if args.distributed:
            loss = all_reduce_mean(loss, args.world_size)
        (loss / args.accum_steps).backward()  # expect: GL201
        if (batch_idx + 1) % args.accum_steps == 0 or batch_idx + 1 == len(loader):  # expect: GL205
            optimizer.step()
            optimizer.zero_grad()


def main(args):
    model = build_model(args.arch).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    loader = build_loader(args.data, args.batch_size)
    for epoch in range(args.epochs):
        train_one_epoch(loader, model, optimizer, criterion, args)
