"""The same logging with numbers: the terms are added with `.item()`, a term made a number
before it is summed, the weight (a number a function computes) summed as it is, and a dict of
outputs whose accuracies (not in the summed loss) go to the totals."""
import torch
import torch.nn.functional as F


def box_weight_at(epoch):
    return min(1.0, 0.1 * epoch)


def train_epoch(model, loader, optimizer, epoch):
    model.train()
    epoch_cls, epoch_box, epoch_weight, epoch_acc = 0.0, 0.0, 0.0, 0.0
    for images, labels, boxes in loader:
        logits, pred_boxes = model(images.cuda())
        cls_loss = F.cross_entropy(logits, labels.cuda())
        box_loss = F.smooth_l1_loss(pred_boxes, boxes.cuda())
        weight = box_weight_at(epoch)
        loss = cls_loss + weight * box_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_cls += cls_loss.item()
        box_loss = box_loss.detach()
        epoch_box += box_loss
        epoch_weight += weight
    print(epoch_cls, epoch_box, epoch_weight)


def train_with_outputs(model, loader, optimizer):
    totals = {"acc": 0.0}
    for batch in loader:
        out = model(batch)
        loss = sum(v for k, v in out.items() if "loss" in k)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        totals["acc"] += out["acc"]
    return totals


class Meter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


def train_with_fallback_meters(model, loader, optimizer, criterion, use_decouple):
    """The re-ID term is a tensor on one branch and 0 on the other: the meter takes its
    `.item()`, and only a number that has none reaches the `except` handler."""
    meter = Meter()
    for images, pids in loader:
        if use_decouple:
            score, feat = model(images)
            loss_reid = criterion(score, pids)
            loss_decouple = feat.pow(2).mean()
            loss = loss_reid + loss_decouple
        else:
            loss_reid = 0
            loss = criterion(model(images)[0], pids)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        try:
            meter.update(loss_reid.item())
        except AttributeError:
            meter.update(loss_reid)
    return meter.sum / max(meter.count, 1)


def train_weighted_by_tokens(model, loader, optimizer, loss_fn, ignore_index=-100):
    """The loss is weighed by the batch's token count, a count the comparison makes (no graph):
    the step's token total adds counts, and the running loss takes a number."""
    num_tokens, running_loss = 0, 0.0
    for batch in loader:
        current_num_tokens = (batch["labels"] != ignore_index).sum()
        num_tokens += current_num_tokens
        current_loss = loss_fn(model(batch["tokens"]), batch["labels"]) * current_num_tokens
        current_loss.backward()
        running_loss += current_loss.item()
        optimizer.step()
        optimizer.zero_grad()
    return running_loss / max(int(num_tokens), 1)
