"""A point-cloud segmentation loop steps after every backward, then clips and steps the same
optimizer again: the first step used the unclipped gradients."""
import torch


def train_epoch(classifier, loader, optimizer, criterion):
    classifier.train()
    num_iter = 0
    for points, label, target in loader:
        num_iter += 1
        seg_pred = classifier(points.cuda(), label.cuda()).view(-1, 50)
        loss = criterion(seg_pred, target.view(-1).cuda())
        loss.backward()
        torch.nn.utils.clip_grad_norm_(classifier.parameters(), 10, norm_type=2)  # expect: GL101
        optimizer.step()
        if num_iter == 1:
            num_iter = 0
            optimizer.step()
            classifier.zero_grad()
