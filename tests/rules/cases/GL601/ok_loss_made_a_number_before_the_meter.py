import torch
import torch.distributed as dist


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0, 0

    def update(self, value, n=1):
        self.sum += value * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def train(epoch, model, optimizer, criterion, loader, distributed):
    model.train()
    loss_meter = AverageMeter()
    running = 0.0
    for step, (data, targets) in enumerate(loader):
        data, targets = data.cuda(), targets.cuda()
        optimizer.zero_grad()
        loss = criterion(model(data), targets)
        loss.backward()
        optimizer.step()
        if distributed:
            dist.all_reduce(loss, op=dist.ReduceOp.SUM)
            loss.div_(dist.get_world_size())
        loss = loss.item()
        loss_meter.update(loss, data.size(0))
        running += loss
    print(f"epoch {epoch}: loss {loss_meter.avg:.4f}, running {running:.4f}")
