"""The epoch's meters are kept in a dict built before the loop, and the loss tensor itself is
handed to one of them: `AverageMeter.update` adds it to `self.sum`, which keeps every
iteration's graph alive until the meters are reset."""
import torch


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val, self.avg, self.sum, self.count = 0, 0, 0, 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def do_train(model, train_loader, optimizer, scheduler, num_epoch):
    meters = {"loss": AverageMeter(), "acc": AverageMeter()}
    for epoch in range(num_epoch):
        for meter in meters.values():
            meter.reset()
        model.train()
        for images, captions in train_loader:
            logits = model(images, captions)
            total_loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(images)))
            optimizer.zero_grad()
            total_loss.backward()
            optimizer.step()
            meters["loss"].update(total_loss, images.shape[0])  # expect: GL601
            meters["acc"].update((logits.argmax(1) == torch.arange(len(images))).float().mean().item(), images.shape[0])
        scheduler.step()
        print(epoch, meters["loss"].avg)
