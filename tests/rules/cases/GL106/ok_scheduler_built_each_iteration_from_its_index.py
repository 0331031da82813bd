"""A segmentation loop that builds its poly schedule anew at every iteration from the global
iteration index, then steps it before the update: the learning rate is computed for this
iteration, no schedule is carried over, nothing is skipped."""
import torch

from utils.scheduler import PolyLR


def train(args, model, train_loader, optimizer, criterion, epoch, device):
    model.train()
    total_batches = len(train_loader)
    for iteration, (images, labels) in enumerate(train_loader):
        cur_iter = (epoch - 1) * total_batches + iteration
        scheduler = PolyLR(optimizer, max_iter=args.max_epochs * total_batches, cur_iter=cur_iter, power=0.9)
        scheduler.step()
        optimizer.zero_grad()
        loss = criterion(model(images.to(device)), labels.to(device).long())
        loss.backward()
        optimizer.step()
