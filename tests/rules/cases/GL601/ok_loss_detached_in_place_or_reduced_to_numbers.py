import torch
import torch.distributed as dist


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n


def train_asr(model, loader, optimizer):
    """The loss is detached in place after its backward, then added to the logging total."""
    total_loss = 0.0
    for batch in loader:
        optimizer.zero_grad()
        train_loss = model(**batch).loss
        train_loss.backward()
        optimizer.step()
        train_loss.detach_()
        total_loss += train_loss
    return total_loss / len(loader)


def train_epoch(model, loader, optimizer, criterion, args):
    """Under several processes the loss is reduced to Python numbers (`.tolist()`, unpacked,
    then divided) before the meter sees it."""
    losses = AverageMeter()
    for images, target in loader:
        optimizer.zero_grad()
        output = model(images.cuda())
        loss = criterion(output, target.cuda())
        loss.backward()
        optimizer.step()
        if args.distributed:
            stats = torch.tensor([loss.item() * args.batch_size, args.batch_size], device="cuda")
            dist.all_reduce(stats)
            loss, batch_size = stats.tolist()
            mean, loss = 0.0, loss / batch_size
            losses.update(loss, batch_size)
        else:
            losses.update(loss.item(), images.size(0))
    return losses.sum / losses.count
